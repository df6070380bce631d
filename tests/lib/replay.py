"""Records of one real agent run, kept for replay: tests that need a
verdict against a reference (ctl check, locally and through Slurm) run
the agent beside ctl once, mark its GEMM rows reliable (a loaded CI
machine may mark a row unreliable, which would change the verdict the
test expects: the figures stay as measured), and serve the lines to ctl
as a fake agent's output.
"""
import json
import subprocess


class AgentRun:
    """One run of AGENT (a path) on the CPU: an n x n fp32 GEMM, 3 timed
    iterations, 8 MiB of bandwidth, no batching. lines: the NDJSON lines
    (str, no newline) with every passing GEMM row marked reliable;
    cpu_model: the host record's; gflops: the last passing GEMM row's.
    Raises RuntimeError when the agent fails or measured nothing."""

    def __init__(self, agent, n, timeout=300):
        p = subprocess.run([agent, "--size", str(n), "--dtypes", "fp32",
                            "--iters", "3", "--warmup", "1",
                            "--device", "cpu", "--no-batching",
                            "--bandwidth-mib", "8"],
                           capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError("agent: %s" % p.stderr)
        self.lines, self.cpu_model, self.gflops = [], None, None
        for line in p.stdout.splitlines():
            r = json.loads(line)
            if r["type"] == "host":
                self.cpu_model = r["cpu_model"]
            if r["type"] == "gemm" and r.get("status") == "pass":
                r["reliable"] = True
                r.pop("unreliable_reasons", None)
                self.gflops = r["gflops"]
            self.lines.append(json.dumps(r, separators=(",", ":")))
        if self.cpu_model is None or self.gflops is None:
            raise RuntimeError("agent: no host record or measured GEMM")
