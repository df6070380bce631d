"""How benchstat (golang.org/x/perf/cmd/benchstat) reads and groups a
file in Go's benchmark format, for tests of `ctl compare --benchstat`
where Go and benchstat are not installed. Each rule follows its source:

- reading (golang.org/x/perf/benchfmt/reader.go): a line starting with
  "Benchmark" is a result (name, iteration count, value/unit pairs), a
  line whose first field is "Unit" is unit metadata, a line
  `key: value` whose key starts with a lower-case letter and holds no
  space or upper-case letter sets file configuration for the results
  after it (an empty value deletes the key), every other line (blank,
  "# ...") is ignored;
- units are tidied as benchunit.Tidy does for the ones ctl writes:
  ns/op becomes sec/op (x 1e-9);
- grouping (cmd/benchstat/main.go, "Configuring comparisons"): results
  go into tables by .config (every file configuration key) and .unit,
  into rows by .fullname, into columns by the -col keys; a key used in
  -col (or -ignore) is left out of .config.
"""

import re


def parse(text):
    """The results of text: a list of (config, name, {unit: value}),
    config a dict of the file configuration in force at the line. Raises
    ValueError for a malformed Benchmark or Unit line (benchstat reports
    those as syntax errors)."""
    config, results = {}, []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith("Benchmark"):
            fields = line[len("Benchmark"):].split()
            if len(fields) < 4 or len(fields) % 2:
                raise ValueError("line %d: malformed result" % lineno)
            int(fields[1])
            values = {}
            for v, unit in zip(fields[2::2], fields[3::2]):
                v = float(v)
                if unit == "ns/op":
                    v, unit = v * 1e-9, "sec/op"
                values[unit] = v
            results.append((dict(config), fields[0], values))
            continue
        fields = line.split()
        if fields and fields[0] == "Unit":
            if len(fields) < 2 or any("=" not in f or f.startswith("=")
                                      for f in fields[2:]):
                raise ValueError("line %d: malformed Unit line" % lineno)
            continue
        m = re.match(r"^([^\s:]+):(.*)$", line)
        if (m and m.group(1)[0].islower() and
                not any(c.isupper() for c in m.group(1)) and
                (m.group(2) == "" or m.group(2)[0] in " \t")):
            value = m.group(2).lstrip(" \t")
            if value:
                config[m.group(1)] = value
            else:
                config.pop(m.group(1), None)
    return results


def tables(text, col, ignore=()):
    """benchstat -col COL [-ignore ...] on text: {(table key, unit): {row:
    {column: [values]}}}, the table key being the .config left after the
    -col and -ignore keys, as a tuple of (key, value)."""
    out = {}
    for config, name, values in parse(text):
        table = tuple((k, v) for k, v in config.items()
                      if k not in col and k not in ignore)
        column = tuple(config.get(k, "") for k in col)
        for unit, v in values.items():
            cells = out.setdefault((table, unit), {})
            cells.setdefault(name, {}).setdefault(column, []).append(v)
    return out
