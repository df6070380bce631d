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


def html_escape(s):
    """As report_html_escape writes text."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


# The page that measures the report (%s: its file name, %d: the width of
# the frame it is drawn in). The report itself carries no script.
PROBE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%s" width="%d" height="2000" style="border:0"></iframe>
<script>
function rect(e) { const r = e.getBoundingClientRect();
  return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; }
function cross(a, b) { return a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 &&
                        a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5; }
document.getElementById('f').onload = function () {
  const w = this.contentWindow, d = this.contentDocument;
  const out = {iw: w.innerWidth, sw: d.documentElement.scrollWidth,
               min: 1e9, small: [], overlaps: [], texts: 0};
  for (const el of d.querySelectorAll('body *')) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'style' || tag === 'title') continue;
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
      continue;
    if (!el.getClientRects().length) continue;
    let fs = parseFloat(w.getComputedStyle(el).fontSize);
    if (el instanceof w.SVGElement) {
      const m = el.getScreenCTM(); fs *= Math.sqrt(m.a * m.a + m.b * m.b); }
    out.texts++;
    if (fs < out.min) out.min = fs;
    if (fs < 12) out.small.push(tag + ' ' + el.textContent.trim().slice(0, 40));
  }
  const groups = [...d.querySelectorAll('svg')].map(s => [...s.querySelectorAll('text')])
    .concat([...d.querySelectorAll('.bars')].map(b =>
      [...b.querySelectorAll('.glabel, .k, .v, figcaption')]));
  for (const g of groups)
    for (let i = 0; i < g.length; i++)
      for (let j = i + 1; j < g.length; j++)
        if (cross(rect(g[i]), rect(g[j])))
          out.overlaps.push(g[i].textContent + ' / ' + g[j].textContent);
  const pre = document.createElement('pre');
  pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
};
</script></body></html>
"""


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-ctl-report-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.ids = []
        for tag in ("first <b>&amp;", "second"):
            r = ctl("run", "local", "--bandwidth-mib", "8",
                    "--sizes", "64,128", "--dtypes", "fp32",
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
        for section in ("Side by side", "GFLOP/s", "Speed-ups",
                        "Fraction of peak", "Roofline", "Bandwidth",
                        "Batching", "History", "Provenance"):
            self.assertIn("<h2>%s</h2>" % section, h)
        # This machine's CPU has no published reference measurement: the
        # chart is left out, and the line under the verdict says so
        # (issue 30: no chart that holds no figure).
        self.assertNotIn("<h2>Against published measurements</h2>", h)
        self.assertRegex(h, r'<p class="leftout">Left out, holding no '
                         r'figure: [^<]*Against published measurements \(no '
                         r'result has one of the same product, dtype and n')
        # Readable on a phone: the page says so to the browser.
        self.assertIn('<meta name="viewport" content="width=device-width,'
                      'initial-scale=1">', h)

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
                # compare_fmt_gflops, as the text tables write it, with
                # ? and the notes' numbers when unreliable
                text = ("%.0f" if med >= 100 else "%.1f" if med >= 10 else
                        "%.2f" if med >= 1 else "%.3g") % med
                mark = r"\?[\d,]+" if not g["reliable"] else ""
                self.assertRegex(self.html, r'<span class="v">%s %s%s</span>'
                                 % (label, re.escape(text), mark))
                self.assertIn('<span class="v">%s %.1f%%</span>' % (
                    label, 100 * g["fraction_of_peak"]), self.html)

    def test_roofline_from_the_records(self):
        # One log-log chart per kind of device (one CPU chart for both
        # runs), each column's roofs from its records' peak and
        # bandwidth in its colour, each GEMM a point in that colour named
        # on hover, the names under the chart and a table row with the
        # record's own numbers; then the bandwidth and batching records.
        charts = re.findall(r'<svg class="chart roofline".*?</svg>', self.html,
                            re.S)
        self.assertEqual(len(charts), 1)  # the CPUs of A and B
        self.assertIn("<h3>CPU</h3>", self.html)
        svg = charts[0]
        # No text in the chart but its axes: names are HTML, under it.
        self.assertEqual(set(re.findall(r'<text [^>]*class="(\w+)"', svg)),
                         {"tick", "unit"})
        for label, run_id, colour in zip("AB", self.ids, ("#4e79a7", "#f28e2b")):
            recs = self.records(run_id)
            gemms = [g for g in recs if g["type"] == "gemm" and
                     g["status"] == "pass" and "bandwidth_kind" in g]
            self.assertEqual(len(gemms), 2)
            bw = gemms[0]["bandwidth_gbps"]
            self.assertIn('stroke="%s" stroke-width="1.5"' % colour, svg)
            self.assertIn("<title>%s local cpu fp32 roof: %.1f GB/s x FLOP/byte "
                          "up to %.1f GFLOP/s" % (label, bw,
                                                   gemms[0]["peak_gflops"]), svg)
            self.assertIn("%s local cpu: %.1f GB/s measured, fp32 peak %.1f "
                          "GFLOP/s" % (label, bw, gemms[0]["peak_gflops"]),
                          self.html)
            for g in gemms:
                self.assertIn('fill="%s"><title>%s local cpu fp32 n=%d: %.1f '
                              'GFLOP/s at %.2f FLOP/byte</title>'
                              % (colour, label, g["n"], g["gflops"],
                                 g["arithmetic_intensity"]), svg)
                self.assertIn("<tr class=\"roofrow\"><td>%s</td><td>local</td>"
                              "<td>cpu</td><td>fp32</td><td>%d</td><td>%.2f</td>"
                              "<td>%.1f</td>" % (label, g["n"],
                                                 g["arithmetic_intensity"],
                                                 g["gflops"]), self.html)
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

    def medians(self, run_id):
        """{n: (median GFLOP/s of the samples, reliable)} of run_id's
        passing fp32 CPU records, as compare_build takes them."""
        out = {}
        for g in self.records(run_id):
            if g["type"] == "gemm" and g["status"] == "pass":
                v = sorted(2 * g["n"] ** 3 / ms / 1e6 for ms in g["samples_ms"])
                k = len(v)
                out[g["n"]] = (v[k // 2] if k % 2 else
                               (v[k // 2 - 1] + v[k // 2]) / 2, g["reliable"])
        return out

    def test_side_by_side_and_speedups(self):
        # A row per device, dtype and n, a column per run, then B over A;
        # and the speed-ups chart of a CPU-only fp32 run is not empty:
        # column against column.
        rows = re.findall(r'<tr class="sbsrow">(.*?)</tr>', self.html)
        self.assertEqual(len(rows), 2)
        a, b = self.medians(self.ids[0]), self.medians(self.ids[1])
        for row, n in zip(rows, (64, 128)):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
            self.assertEqual(cells[:3], ["cpu", "fp32", str(n)])
            # Two decimals, one from 10x up (report_tables.c): a loaded
            # machine can make one run ten times slower than the other.
            r = b[n][0] / a[n][0]
            ratio = "%.*fx" % (1 if r >= 9.995 else 2, r)
            if not (a[n][1] and b[n][1]):
                ratio += "?"
            self.assertEqual(cells[5], ratio)
            # The U test's verdict on hover, as ctl compare gives it.
            self.assertRegex(row, r'title="(~|[+-]\d+\.\d%%|\d+\.\d\dx) '
                             r'\((p=\d\.\d{3} n=\d+\+\d+|n=\d+\+\d+: too few samples)\)">%s'
                             % re.escape(ratio))
        self.assertIn("<th>B/A</th>", self.html)
        speed = self.html.split("<h2>Speed-ups</h2>")[1].split("<h2>")[0]
        self.assertNotIn("No pair to compare", speed)
        for n in (64, 128):
            self.assertIn('<div class="glabel">vs A: cpu fp32 n=%d</div>' % n,
                          speed)
        self.assertIn('<span class="v">A 1.00</span>', speed)

    def test_reasons_notes_and_history(self):
        # Skipped results read as in the text tables: "skipped [K]" with
        # note K giving the record's reason, in the table, the bars and
        # the bandwidth section; the history marks the run whose
        # settings differ from the newest.
        res = os.path.join(self.tmp, "results-reasons")
        for extra in (["--dtypes", "fp32"],
                      ["--dtypes", "fp32,fp16", "--device", "all"]):
            r = ctl("run", "local", "--bandwidth-mib", "8",
                    "--sizes", "64", "--iters", "3",
                    "--warmup", "1", "--no-tui", "--results", res, *extra)
            self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        last = re.search(r"^run (\S+):", r.stdout, re.M).group(1)
        out = os.path.join(self.tmp, "reasons.html")
        r = ctl("report", last, "--results", res, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            html = f.read()
        with open(os.path.join(res, last, "run.json")) as f:
            run = json.load(f)
        with open(os.path.join(res, last, run["hosts"][0]["records_file"])) as f:
            recs = [json.loads(line) for line in f]
        notes = dict((int(k), v) for k, v in
                     re.findall(r"<li>\[(\d+)\] (.*?)</li>", html))
        skipped = [g for g in recs if g["type"] == "gemm" and
                   g["status"] != "pass"]
        if not skipped:
            self.skipTest("every GEMM passed here: no reason to show")
        sbs = html.split("<h2>Side by side</h2>")[1].split("<h2>")[0]
        for g in skipped:
            k = [k for k, v in notes.items() if v == html_escape(g["reason"])]
            self.assertEqual(len(k), 1, (g["reason"], notes))
            word = "skipped" if g["status"] == "skipped" else "FAIL"
            self.assertIn("<td>%s</td><td>%s</td><td>64</td><td class=\"num\">"
                          "%s [%d]</td>" % (g["device"], g["dtype"], word, k[0]),
                          sbs)
            # A result with no figure in any column has no bar (issue
            # 30): the line under the verdict counts them.
            self.assertNotIn('<span class="v">A %s [%d]</span>'
                             % (word, k[0]), html)
            self.assertIn("<li>[%d] %s</li>" % (k[0], html_escape(g["reason"])),
                          sbs)
        self.assertRegex(html, r'<p class="leftout">[^<]*the GFLOP/s bars '
                         r'of %d results? skipped or failed in every column'
                         % len(skipped))
        for b in recs:
            if b["type"] == "bandwidth" and b["status"] != "pass":
                k = [k for k, v in notes.items()
                     if v == html_escape(b["reason"])][0]
                bw = html.split("<h2>Bandwidth</h2>")[1].split("<h2>")[0]
                self.assertIn("<td>%s</td><td>skipped [%d]</td></tr>"
                              % ("n/a", k), bw)
                self.assertIn("<li>[%d] " % k, bw)
        # local's history: the second run had other dtypes than the
        # first, a series of its own, marked where it begins.
        hist = html.split("<h2>History</h2>")[1].split("<h2>")[0]
        self.assertIn("\u2260 settings 2 from here: dtypes differs</span>",
                      hist)
        self.assertIn('<line class="settings" x1=', hist)
        self.assertRegex(hist, r'class="tick" text-anchor="middle">2\u2260<')
        self.__class__.reasons_html = out

    def probe(self, page, width):
        """Loads page in headless Chromium inside an iframe `width` CSS px
        wide (Chromium's own windows are no narrower than 500) and
        measures it from the outer page, which may script the frame
        (--allow-file-access-from-files): the frame's innerWidth and
        scrollWidth, the smallest text as drawn (an SVG text's size
        times its scale on screen), and every pair of texts that overlap
        in a chart or in the bars."""
        browser = chromium()
        if not browser:
            self.skipTest("chromium is not installed (tools/install-deps)")
        wrapper = os.path.join(os.path.dirname(page), "probe-%d.html" % width)
        with open(wrapper, "w") as f:
            f.write(PROBE % (os.path.basename(page), width))
        r = subprocess.run([browser, "--headless=new", "--no-sandbox",
                            "--disable-gpu", "--hide-scrollbars",
                            "--allow-file-access-from-files",
                            "--user-data-dir=" + os.path.join(self.tmp, "chp"),
                            "--window-size=1600,1000", "--dump-dom",
                            "file://" + wrapper],
                           capture_output=True, text=True, timeout=240)
        m = re.search(r'<pre id="probe">(.*?)</pre>', r.stdout, re.S)
        self.assertTrue(m, r.stderr[-2000:])
        return json.loads(m.group(1).replace("&quot;", '"')
                          .replace("&amp;", "&").replace("&lt;", "<")
                          .replace("&gt;", ">"))

    def test_readable_at_1280_and_420(self):
        # On a desktop and on a phone: no sideways scroll (the page's
        # scrollWidth within the viewport), no text below 12 px, and no
        # label drawn over another, in both reports.
        if not getattr(self.__class__, "reasons_html", None):
            self.test_reasons_notes_and_history()
        for page in (self.html_path, self.__class__.reasons_html):
            for width in (1280, 420):
                with self.subTest(page=os.path.basename(page), width=width):
                    m = self.probe(page, width)
                    self.assertEqual(m["iw"], width)
                    self.assertLessEqual(m["sw"], m["iw"], m)
                    self.assertGreaterEqual(m["min"], 12, m["small"][:10])
                    self.assertEqual(m["overlaps"], [])
                    self.assertGreater(m["texts"], 50)

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
