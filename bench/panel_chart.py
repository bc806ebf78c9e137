"""A grid of line-chart panels drawn by gnuplot as SVG, for the benchmark reports
(mapping_report.py, smpi_eval_chart.py): every panel over one x axis (log 2,
labelled ticks), one y axis per row of panels, one key below them all."""
import os
import subprocess


def literal(text):
    """text as a gnuplot string literal."""
    return "'" + text.replace("'", "''") + "'"


def span(xticks):
    """The x axis's ends: a reference line across a panel runs between them."""
    xs = [x for _, x in xticks]
    return min(xs) / 1.5, max(xs) * 1.5


def draw(path, title, xticks, rows, styles):
    """Writes the chart to path, whole or not at all; raises RuntimeError (gnuplot's
    complaint) when it cannot.
    xticks: [(label, x)], the x values the panels share (the axis spans them).
    rows: [(y label, (y min, y max), log y, [(panel title, [(series, [(x, y), ...]), ...]), ...]), ...].
    styles: {series: gnuplot 'with' clause}, in the key's order; a series without
    points is left out of its panel, and of the key if no panel has it."""
    columns = max(len(panels) for _, _, _, panels in rows)
    width, height = 0.96 / columns, 0.86 / len(rows)
    blocks, script, drawn = [], [], set()
    for r, (ylabel, (low, high), logy, panels) in enumerate(rows):
        bottom = 0.08 + (len(rows) - 1 - r) * height
        script += [f"set yrange [{low}:{high}]", "set logscale y" if logy else "unset logscale y"]
        for c, (name, series) in enumerate(panels):
            curves = []
            for label, points in series:
                if points:
                    block = f"$d{r}_{c}_{len(curves)}"
                    blocks.append(f"{block} << EOD\n" + "".join(f"{x} {y:.6g}\n" for x, y in points) + "EOD")
                    curves.append(f"{block} using 1:2 with {styles[label]} notitle")
                    drawn.add(label)
            if c == 0:  # the row's y label, drawn with its first panel
                script.append(f"set label 1 {literal(ylabel)} at screen 0.012, {bottom + height / 2:.4f} center "
                              "rotate by 90 font ',11'")
            script += [f"set origin {0.03 + c * width:.4f}, {bottom:.4f}", f"set size {width:.4f}, {height:.4f}",
                       f"set title {literal(name)}", "plot " + (", ".join(curves) or "NaN notitle"),  # empty: axes only
                       "unset label 1"]
    head = ["set logscale x 2", "set xrange [{}:{}]".format(*span(xticks)),
            "set xtics (" + ", ".join(f"{literal(label)} {x}" for label, x in xticks) + ")",
            "set grid", "set tics font ',9'", "set title font ',10' offset 0,-0.5",
            f"set multiplot title {literal(title)} font ',13'"]
    key = ["set origin 0, 0", "set size 1, 0.07", "unset border", "unset tics", "unset grid",
           "unset title", "unset logscale", "set xrange [0:1]", "set yrange [0:1]",
           "set key center center horizontal maxcols 8 samplen 2 width -1 font ',11'",
           "plot " + (", ".join(f"NaN with {style} title {literal(label)}" for label, style in styles.items()
                                if label in drawn) or "NaN notitle"),
           "unset multiplot"]
    tmp = f"{path}.tmp"
    full = "\n".join([f"set terminal svg size 1200,{250 * len(rows) + 120} dynamic noenhanced font 'sans,10' "
                      "background '#ffffff'", f"set output {literal(tmp)}"] + blocks + head + script + key + ["unset output", ""])
    try:
        subprocess.run(["gnuplot"], input=full, text=True, check=True, capture_output=True, timeout=120)
        os.replace(tmp, path)
    except (OSError, subprocess.SubprocessError) as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise RuntimeError(f"cannot draw {path}: " + (getattr(e, "stderr", "") or str(e)).strip()[-500:]) from e
