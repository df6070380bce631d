#!/usr/bin/env python3
"""The verdict in ctl report (issue 30): verdict cards first, no chart
(or bar group) that holds no figure, one line saying what was left out
and why, and no sideways scroll at 420 px with three host columns.

Runs made from one real `ctl run local` (its run.json and records):
runs A and B whose host has 4 H100s (the real CPU GEMM record repeated
on cuda:0..3, cuda:3 at half speed in B, an fp16 row per GPU skipped;
no energy, no published reference), and run C with three hosts (local,
hb2, hb3) holding the CPU record. Checked in the HTML and in a real
headless Chromium at 1280 and 420 CSS px:

- the first section is the verdict: B's cuda:3 card is SLOW naming its 3
  peers, A's is ok; drawn above every other section;
- no Energy and no "Against published measurements" chart, no bar group
  for the skipped fp16 rows, and the left-out line names each and why;
- C's report (three host columns) and A/B's are no wider than the
  viewport at 1280 and at 420 px.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]

# Measures a page drawn in an iframe `width` CSS px wide (Chromium's own
# windows are no narrower than 500): its innerWidth and scrollWidth, the
# top of the verdict heading and the smallest top of the other headings,
# and the bar figures with no bar.
PROBE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%s" width="%d" height="3000" style="border:0"></iframe>
<script>
document.getElementById('f').onload = function () {
  const w = this.contentWindow, d = this.contentDocument;
  const hs = [...d.querySelectorAll('h2')];
  const v = d.getElementById('verdict');
  const out = {iw: w.innerWidth, sw: d.documentElement.scrollWidth,
               verdict: v ? v.getBoundingClientRect().top : null,
               others: Math.min(...hs.filter(h => h !== v)
                                     .map(h => h.getBoundingClientRect().top)),
               cards: d.querySelectorAll('.card').length,
               empty: [...d.querySelectorAll('figure.bars')]
                        .filter(f => !f.querySelector('.fill')).length,
               emptygroups: [...d.querySelectorAll('figure.bars .group')]
                        .filter(g => !g.querySelector('.fill')).length};
  const pre = document.createElement('pre');
  pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
};
</script></body></html>
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class ReportVerdict(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-report-verdict-")
        real = os.path.join(cls.tmp, "real")
        cls.results = os.path.join(cls.tmp, "results")
        cls.hosts = os.path.join(cls.tmp, "hosts")
        os.makedirs(cls.hosts)
        cls.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8",
                       XDG_CONFIG_HOME=os.path.join(cls.tmp, "xdg"))
        r = subprocess.run(
            [CTL, "run", "local", "--size", "64", "--device", "cpu",
             "--dtypes", "fp32", "--no-bandwidth", "--no-batching",
             "--no-tui", "--results", real, "--hosts-dir", cls.hosts],
            capture_output=True, text=True, timeout=300, env=cls.env)
        if r.returncode != 0:
            raise RuntimeError("ctl run: %s" % r.stderr)
        src = os.path.join(real, os.listdir(real)[0])
        with open(os.path.join(src, "run.json")) as f:
            cls.meta = json.load(f)
        with open(os.path.join(src, cls.meta["hosts"][0]["records_file"])) as f:
            cls.recs = [json.loads(x) for x in f if x.strip()]
        cls.ab = ["20990101T000000Z-aaaa", "20990101T000100Z-bbbb"]
        cls.c = "20990101T000200Z-cccc"
        for rid, slow in zip(cls.ab, (1.0, 2.0)):
            cls.make_run(rid, [("local", cls.gpu_records(slow))])
        cls.make_run(cls.c, [(h, cls.plain_records())
                             for h in ("local", "hb2", "hb3")])
        cls.pages = {}
        for name, args in (("ab", cls.ab), ("c", [cls.c])):
            path = os.path.join(cls.tmp, name + ".html")
            r = subprocess.run([CTL, "report", *args, "--results",
                                cls.results, "--hosts-dir", cls.hosts,
                                "--history", "0", "-o", path],
                               capture_output=True, text=True, timeout=300,
                               env=cls.env)
            if r.returncode != 0:
                raise RuntimeError("ctl report: %s" % r.stderr)
            with open(path, encoding="utf-8") as f:
                cls.pages[name] = (path, f.read())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @staticmethod
    def strip(g):
        for key in ("fraction_of_peak", "peak_gflops", "peak_bound_gflops",
                    "fraction_of_roofline", "roofline_gflops",
                    "gflop_per_joule", "energy_source", "energy_reason",
                    "joules", "watts", "reference_gflops",
                    "reference_source", "fraction_of_reference",
                    "below_reference"):
            g.pop(key, None)
        return g

    @classmethod
    def plain_records(cls):
        out = json.loads(json.dumps(cls.recs))
        for r in out:
            if r["type"] == "gemm":
                cls.strip(r)
        return out

    @classmethod
    def gpu_records(cls, slow):
        out, seq = [], 0
        for r in json.loads(json.dumps(cls.recs)):
            if r["type"] == "host":
                r["gpus"] = [{"index": k, "name": "NVIDIA H100 80GB HBM3",
                              "memory_bytes": 85520809984}
                             for k in range(4)]
            if r["type"] != "gemm":
                r["seq"] = seq
                seq += 1
                out.append(r)
                continue
            for k in range(4):
                g = cls.strip(json.loads(json.dumps(r)))
                g["device"] = "cuda:%d" % k
                g["reliable"] = True
                g["unreliable_reasons"] = []
                f = slow if k == 3 else 1.0 + 0.01 * k
                g["samples_ms"] = [x * f for x in g["samples_ms"]]
                for key in ("median_ms", "min_ms", "max_ms"):
                    g[key] *= f
                g["gflops"] = 2 * g["n"] ** 3 / g["median_ms"] / 1e6
                g["seq"] = seq
                seq += 1
                out.append(g)
                out.append({"schema": 1, "type": "gemm", "seq": seq,
                            "device": "cuda:%d" % k, "dtype": "fp16",
                            "n": g["n"], "status": "skipped",
                            "reason": "no fp16 here", "median_ms": None,
                            "gflops": None})
                seq += 1
        return out

    @classmethod
    def make_run(cls, rid, hosts):
        d = os.path.join(cls.results, rid)
        os.makedirs(d)
        meta = json.loads(json.dumps(cls.meta))
        meta["run_id"] = rid
        entry = meta["hosts"][0]
        meta["hosts"] = []
        for i, (name, recs) in enumerate(hosts):
            e = dict(entry, name=name, target=name,
                     records_file="%02d-%s.ndjson" % (i, name),
                     log_file="%02d-%s.log" % (i, name))
            meta["hosts"].append(e)
            with open(os.path.join(d, e["records_file"]), "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in recs))
            open(os.path.join(d, e["log_file"]), "w").close()
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump(meta, f)

    def test_cards_first(self):
        html = self.pages["ab"][1]
        heads = re.findall(r"<h2[^>]*>(.*?)</h2>", html)
        self.assertEqual(heads[0], "Verdict")
        cards = re.findall(r'<div class="card v-(\w+)"><strong>(.*?)</strong>(.*?)</div>',
                           html)
        by = {b: (k, rest) for k, b, rest in cards}
        kind, rest = by["B local cuda:3 SLOW"]
        self.assertEqual(kind, "slow")
        self.assertRegex(rest, r"^ fp32 n=64, [\d.]+ GFLOP/s<br>0\.5[01] of "
                         r"its 3 peers \(median ")
        self.assertIn("local cuda:0, local cuda:1, local cuda:2", rest)
        self.assertEqual(by["A local cuda:3 ok"][0], "ok")
        for k in range(3):
            for col in "AB":
                self.assertIn("%s local cuda:%d ok" % (col, k), by)
        # The CPU is not in these runs: 8 cards, the GPUs of A and B.
        self.assertEqual(len(cards), 8)

    def test_nothing_that_says_nothing(self):
        html = self.pages["ab"][1]
        self.assertNotIn("<h2>Energy</h2>", html)
        self.assertNotIn("<h2>Against published measurements</h2>", html)
        self.assertNotIn("<h2>Fraction of peak</h2>", html)
        left = re.findall(r'<p class="leftout">(.*?)</p>', html)
        self.assertEqual(len(left), 1)
        self.assertIn("the GFLOP/s bars of 4 results skipped or failed in "
                      "every column", left[0])
        self.assertIn("Energy (no result carries its energy", left[0])
        self.assertIn("Fraction of peak (no result carries a rated peak",
                      left[0])
        self.assertIn("Against published measurements (no result has one",
                      left[0])
        gflops = html.split("<h2>GFLOP/s</h2>")[1].split("<h2")[0]
        self.assertNotIn("fp16", gflops)
        self.assertEqual(gflops.count('<div class="glabel">'), 4)
        # Before the charts, after the cards.
        self.assertLess(html.index('class="leftout"'),
                        html.index("<h2>GFLOP/s</h2>"))
        self.assertGreater(html.index('class="leftout"'),
                           html.index('class="cards"'))

    def probe(self, page, width):
        browser = chromium()
        if not browser:
            self.skipTest("chromium is not installed (tools/install-deps)")
        wrapper = os.path.join(os.path.dirname(page), "probe-%s-%d.html"
                               % (os.path.basename(page), width))
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

    def test_in_chromium_at_1280_and_420(self):
        for name, cards in (("ab", 8), ("c", 3)):
            for width in (1280, 420):
                with self.subTest(page=name, width=width):
                    m = self.probe(self.pages[name][0], width)
                    self.assertEqual(m["iw"], width)
                    self.assertLessEqual(m["sw"], m["iw"], m)
                    self.assertIsNotNone(m["verdict"])
                    self.assertLess(m["verdict"], m["others"], m)
                    self.assertEqual(m["cards"], cards)
                    self.assertEqual(m["empty"], 0, m)
                    self.assertEqual(m["emptygroups"], 0, m)

    def test_three_hosts_are_three_columns(self):
        html = self.pages["c"][1]
        for h in ("local", "hb2", "hb3"):
            self.assertRegex(html, r'<div class="card v-\w+"><strong>[ABC] %s cpu '
                             % h)


if __name__ == "__main__":
    unittest.main()
