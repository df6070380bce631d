#!/usr/bin/env python3
"""Black-box tests of `ctl report` and of ctl compare's sample exports.

The page is self-contained (no script, no network), carries the archived
figures, escapes what came from outside, and renders: headless Chromium
(Debian's package) draws it to a PNG in which the bars of both runs are
found by their colours. `ctl compare --benchstat` follows Go's benchmark
format (checked with the format's rules, golang.org/x/perf/benchfmt) and
`--samples` gives every sample; both carry exactly the archived samples.

Environment: BF_CTL, BF_AGENT (as for test_ctl_compare.py).
"""
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import tempfile
import unittest
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import benchfmt  # noqa: E402

CTL = os.environ.get("BF_CTL", "ctl")
AGENT = os.environ.get("BF_AGENT")
COLOR_A = (0x4e, 0x79, 0xa7)   # report_charts.c's palette[0]
COLOR_B = (0xf2, 0x8e, 0x2b)   # palette[1]


def ctl(*args, cwd=None):
    env = dict(os.environ)
    if AGENT:
        env["BENCHFLEET_AGENT"] = AGENT
    return subprocess.run([CTL, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA PNG, with
    the five PNG filters undone (PNG spec, section 9)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xff
            elif f == 2:
                line[i] = (line[i] + b) & 0xff
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xff
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-ctl-report-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.ids = []
        for tag in ("first <b>&amp;", "second"):
            r = ctl("run", "local", "--sizes", "64,128", "--dtypes", "fp32",
                    "--device", "cpu", "--iters", "5", "--warmup", "1",
                    "--no-tui", "--results", cls.results, "--tag", tag)
            if r.returncode not in (0, 1):
                raise AssertionError(f"ctl run failed: {r.returncode}\n"
                                     f"{r.stdout}\n{r.stderr}")
            cls.ids.append(re.search(r"^run (\S+):", r.stdout, re.M).group(1))
        cls.html_path = os.path.join(cls.tmp, "report.html")
        r = ctl("report", "--results", cls.results, "-o", cls.html_path)
        if r.returncode != 0:
            raise AssertionError(r.stderr)
        with open(cls.html_path, encoding="utf-8") as f:
            cls.html = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def records(self, run_id):
        with open(os.path.join(self.results, run_id, "run.json")) as f:
            run = json.load(f)
        path = os.path.join(self.results, run_id,
                            run["hosts"][0]["records_file"])
        with open(path) as f:
            return [json.loads(line) for line in f]

    def test_self_contained(self):
        h = self.html
        self.assertTrue(h.startswith("<!DOCTYPE html>"))
        self.assertNotIn("<script", h.lower())
        self.assertIsNone(re.search(r"\b(src|href)=", h))
        urls = set(re.findall(r"https?://[^\"'\s<>]+", h))
        self.assertEqual(urls, {"http://www.w3.org/2000/svg"})
        for section in ("GFLOP/s", "Speed-ups", "Fraction of peak",
                        "Against published measurements",
                        "Roofline", "Bandwidth", "Batching", "History",
                        "Provenance"):
            self.assertIn("<h2>%s</h2>" % section, h)
        # This machine's CPU has no published reference measurement.
        self.assertIn("No result has a published measurement of the same "
                      "product, dtype and n", h)

    def test_figures_from_the_records(self):
        for label, run_id in zip("AB", self.ids):
            self.assertIn(run_id, self.html)
            for g in self.records(run_id):
                if g["type"] != "gemm" or g["status"] != "pass":
                    continue
                # compare_build takes the median of the per-sample GFLOP/s
                v = sorted(2 * g["n"] ** 3 / ms / 1e6 for ms in g["samples_ms"])
                med = v[len(v) // 2] if len(v) % 2 else \
                    (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
                # report_charts.c's report_fmt_value
                text = ("%.0f" if med >= 100 else
                        "%.1f" if med >= 10 else "%.2f") % med
                self.assertIn(">%s %s</text>" % (label, text), self.html)
                self.assertIn(">%s %.1f%%</text>" % (
                    label, 100 * g["fraction_of_peak"]), self.html)

    def test_roofline_from_the_records(self):
        # One log-log chart per run and device, its roofs from the
        # records' peak and bandwidth, each GEMM a point labelled dtype/n
        # and a table row with the record's own numbers; then the
        # bandwidth and batching records.
        charts = re.findall(r'<svg class="chart roofline".*?</svg>', self.html,
                            re.S)
        self.assertEqual(len(charts), 2)  # A cpu, B cpu
        for label, run_id, svg in zip("AB", self.ids, charts):
            recs = self.records(run_id)
            gemms = [g for g in recs if g["type"] == "gemm" and
                     g["status"] == "pass" and "bandwidth_kind" in g]
            self.assertEqual(len(gemms), 2)
            bw = gemms[0]["bandwidth_gbps"]
            self.assertIn("<h3>%s local cpu: triad %.1f GB/s</h3>" % (label, bw),
                          self.html)
            self.assertIn("roof: %.1f GB/s x FLOP/byte up to %.1f GFLOP/s" %
                          (bw, gemms[0]["peak_gflops"]), svg)
            for g in gemms:
                self.assertIn('class="value">fp32/%d</text>' % g["n"], svg)
                self.assertIn("<title>fp32 n=%d: %.1f GFLOP/s at %.2f FLOP/byte"
                              "</title>" % (g["n"], g["gflops"],
                                            g["arithmetic_intensity"]), svg)
                self.assertIn("<td>fp32</td><td>%d</td><td>%.2f</td><td>%.1f</td>"
                              % (g["n"], g["arithmetic_intensity"], g["gflops"]),
                              self.html)
                self.assertIn("<td>%s</td><td>%.1f%%</td></tr>" % (
                    g["bound"], 100 * g["fraction_of_roofline"]), self.html)
            for b in recs:
                if b["type"] == "bandwidth" and b["status"] == "pass":
                    v = b["median_gbps"]
                    text = ("%.0f" if v >= 100 else
                            "%.1f" if v >= 10 else "%.2f") % v
                    self.assertIn('<tr class="bwrow"><td>%s</td><td>local</td>'
                                  "<td>cpu</td><td>%s</td><td>%s</td>" %
                                  (label, b["kind"], text), self.html)
                if b["type"] == "batching" and b["status"] == "pass":
                    # All 20 one-row calls beside the one batch, the
                    # speed-up, each per row, in µs: as the text tables.
                    k = b["rows"]
                    cells = "".join("<td>%.3g</td>" % v for v in (
                        k * b["single_ms"] * 1000, b["batch_ms"] * 1000))
                    cells += "<td>%.2fx</td>" % b["speedup"]
                    cells += "".join("<td>%.3g</td>" % v for v in (
                        b["single_ms"] * 1000, b["batch_ms"] * 1000 / k))
                    self.assertIn("<td>%d</td>%s<td>pass</td>" % (k, cells),
                                  self.html)
                    self.assertIn("<th>one-row calls \u00b5s</th><th>batch "
                                  "\u00b5s</th><th>speed-up</th>", self.html)

    def test_outside_text_escaped(self):
        self.assertNotIn("<b>", self.html)
        self.assertIn("first &lt;b&gt;&amp;amp;", self.html)

    def test_one_run_and_errors(self):
        out = os.path.join(self.tmp, "one.html")
        r = ctl("report", self.ids[0], "--results", self.results, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.getsize(out) > 1000)
        r = ctl("report", "no-such-run", "--results", self.results, "-o", out)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^ctl: report: .*no-such-run")
        r = ctl("report", "--history", "x", "--results", self.results)
        self.assertEqual(r.returncode, 2)
        # The file the user named, and why: not a temporary one.
        missing = os.path.join(self.tmp, "no-dir", "x.html")
        r = ctl("report", "--results", self.results, "-o", missing)
        self.assertEqual((r.returncode, r.stderr),
                         (4, "ctl: report: cannot write %s: "
                          "No such file or directory\n" % missing))
        r = ctl("report", "--results", self.results, "-o", self.tmp)
        self.assertEqual((r.returncode, r.stderr),
                         (4, "ctl: report: cannot write %s: "
                          "Is a directory\n" % self.tmp))

    def test_write_errors(self):
        # Through a link, so that a ctl renaming its temporary file over
        # the name replaces the link, never /dev/full itself.
        if not (os.path.exists("/dev/full") and
                stat.S_ISCHR(os.stat("/dev/full").st_mode)):
            self.skipTest("no /dev/full")
        d = tempfile.mkdtemp(dir=self.tmp)
        full = os.path.join(d, "full")
        os.symlink("/dev/full", full)
        r = ctl("report", "--results", self.results, "-o", full)
        self.assertEqual((r.returncode, r.stderr),
                         (4, "ctl: report: cannot write %s: "
                          "No space left on device\n" % full))
        self.assertEqual(os.readlink(full), "/dev/full")
        self.assertEqual(os.listdir(d), ["full"])  # no temporary file left
        # Not a regular file: written into, not replaced.
        null = os.path.join(d, "null")
        os.symlink("/dev/null", null)
        r = ctl("report", "--results", self.results, "-o", null)
        self.assertEqual((r.returncode, r.stderr),
                         (0, "report: 2 columns written to %s\n" % null))
        self.assertEqual(os.readlink(null), "/dev/null")
        # A link to a page: the page is rewritten, the link stays.
        page = os.path.join(d, "page.html")
        with open(page, "w") as f:
            f.write("old")
        link = os.path.join(d, "link.html")
        os.symlink(page, link)
        r = ctl("report", "--results", self.results, "-o", link)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.readlink(link), page)
        with open(page, encoding="utf-8") as f:
            self.assertIn("<svg", f.read())
        self.assertEqual(sorted(os.listdir(d)),
                         ["full", "link.html", "null", "page.html"])
        # -o -: stdout, checked as every command's.
        with open("/dev/full", "w") as f:
            r = subprocess.run([CTL, "report", "--results", self.results,
                                "-o", "-"], stdout=f, stderr=subprocess.PIPE,
                               text=True, timeout=300)
        self.assertEqual((r.returncode, r.stderr),
                         (4, "ctl: write error: stdout: "
                          "No space left on device\n"))

    def test_renders_in_chromium(self):
        browser = chromium()
        if not browser:
            self.skipTest("chromium is not installed (tools/install-deps --test)")
        png = os.path.join(self.tmp, "report.png")
        r = subprocess.run([browser, "--headless=new", "--no-sandbox",
                            "--disable-gpu", "--hide-scrollbars",
                            "--user-data-dir=" + os.path.join(self.tmp, "chr"),
                            "--window-size=1100,1400", "--screenshot=" + png,
                            "file://" + self.html_path],
                           capture_output=True, text=True, timeout=240)
        self.assertTrue(os.path.exists(png), r.stderr[-2000:])
        w, h, rows = png_pixels(png)
        self.assertEqual((w, h), (1100, 1400))
        count = {COLOR_A: 0, COLOR_B: 0}
        colours = set()
        for row in rows:
            for px in row:
                colours.add(px)
                if px in count:
                    count[px] += 1
        # Both runs' bars are drawn (4 bars each in two charts) and the
        # page is not blank.
        self.assertGreater(count[COLOR_A], 2000, count)
        self.assertGreater(count[COLOR_B], 2000, count)
        self.assertGreater(len(colours), 20)

    def archived_samples(self):
        """{(run_id, device, dtype, n): [ms, ...]} of passing records."""
        out = {}
        for run_id in self.ids:
            for g in self.records(run_id):
                if g["type"] == "gemm" and g["status"] == "pass":
                    out[(run_id, g["device"], g["dtype"], g["n"])] = \
                        g["samples_ms"]
        return out

    def test_benchstat_format(self):
        r = ctl("compare", "--results", self.results, "--benchstat")
        self.assertEqual(r.returncode, 0, r.stderr)
        config, got = {}, {}
        bench = re.compile(r"^Benchmark[^\s]+ \d+( [0-9.e+-]+ [^\s]+)+$")
        for line in r.stdout.splitlines():
            if not line or line.startswith("# "):
                continue   # ignored by benchfmt (a column's description)
            if line.startswith("Unit "):
                self.assertRegex(line, r"^Unit \S+( \w+=\w+)+$")
                continue
            m = re.match(r"^([a-z][^\s:]*): (.*)$", line)
            if m:
                config[m.group(1)] = m.group(2)
                continue
            self.assertRegex(line, bench)
            fields = line.split()
            name = dict(kv.split("=") for kv in fields[0].split("/")[1:])
            self.assertEqual(fields[1], "1")
            self.assertEqual(fields[3], "ns/op")
            self.assertEqual(fields[5], "GFLOP/s")
            key = (config["run"], name["device"], name["dtype"], int(name["n"]))
            got.setdefault(key, []).append(float(fields[2]) / 1e6)
            gf = 2 * int(name["n"]) ** 3 / float(fields[2])  # FLOP/ns
            self.assertAlmostEqual(float(fields[4]), gf, delta=gf * 1e-3)
        self.assertIn("first <b>&amp;", r.stdout)  # the tag, verbatim
        want = self.archived_samples()
        self.assertEqual(set(got), set(want))
        for k, ms in want.items():
            for a, b in zip(got[k], ms):
                self.assertAlmostEqual(a, b, delta=1e-6 * b + 1e-9)

    def test_benchstat_compares_runs(self):
        # `benchstat -col run FILE`, as benchstat groups it (tests/lib/
        # benchfmt.py, from golang.org/x/perf): one table per unit, the
        # two runs as its columns, every row in both; no other
        # configuration line may vary between the columns (the tags
        # differ, and so did the column: lines), or benchstat starts a
        # table per column and compares nothing.
        r = ctl("compare", "--results", self.results, "--benchstat")
        self.assertEqual(r.returncode, 0, r.stderr)
        got = benchfmt.tables(r.stdout, col=("run",))
        self.assertEqual(sorted(unit for _, unit in got),
                         ["GFLOP/s", "sec/op"], sorted(got))
        want = self.archived_samples()
        for (_, unit), cells in got.items():
            self.assertEqual(len(cells), len(want) // 2, cells.keys())
            for row, cols in cells.items():
                self.assertEqual(sorted(cols), sorted((i,) for i in
                                                      self.ids), row)
                for (run_id,), values in cols.items():
                    fields = dict(kv.split("=") for kv in row.split("/")[1:])
                    key = (run_id, fields["device"], fields["dtype"],
                           int(fields["n"]))
                    self.assertEqual(len(values), len(want[key]))
        # Each column is still described, in lines benchstat ignores.
        for i, tag in zip(self.ids, ("first <b>&amp;", "second")):
            self.assertRegex(r.stdout, r"(?m)^# [AB]: run %s, host local, "
                             r"tag %s$" % (i, re.escape(tag)))

    def test_samples_csv(self):
        import csv
        import io
        r = ctl("compare", "--results", self.results, "--samples")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        want = self.archived_samples()
        self.assertEqual(len(rows), sum(len(v) for v in want.values()))
        for row in rows:
            ms = want[(row["run_id"], row["device"], row["dtype"],
                       int(row["n"]))][int(row["sample"])]
            self.assertAlmostEqual(float(row["ms"]), ms, delta=ms * 1e-9)
        r = ctl("compare", "--results", self.results, "--samples", "--csv")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
