"""Looks at a headless-Chromium screenshot of a `ktune log report` page.

Each kind of plot draws in a colour of its own (svg_plot.cpp); finding enough pixels
of that exact colour means the plot was rendered, not just present in the markup.
Dark pixels left of each plot's y axis mean its axis label and tick labels were drawn.
Usage: check_screenshot.py SHOT.png
"""
import sys

from PIL import Image

img = Image.open(sys.argv[1]).convert("RGB")
w, h = img.size
counts = {}
for colour in img.getdata():
    counts[colour] = counts.get(colour, 0) + 1

expect = {
    "best-so-far line (#d62728)": ((0xD6, 0x27, 0x28), 300),
    "histogram bars (#1f77b4)": ((0x1F, 0x77, 0xB4), 5000),
    "strip-plot points (#2ca02c)": ((0x2C, 0xA0, 0x2C), 3000),
    "fastest heat-map cell (#440154)": ((0x44, 0x01, 0x54), 500),
}
failed = False
for what, (rgb, least) in expect.items():
    n = counts.get(rgb, 0)
    ok = n >= least
    failed |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {n} pixels (need {least})")

# Text: near-black pixels make up a visible share of the page (tables, titles, axes).
dark = sum(n for (r, g, b), n in counts.items() if r < 90 and g < 90 and b < 90)
ok = dark > 0.004 * w * h
failed |= not ok
print(f"{'ok  ' if ok else 'FAIL'} dark text pixels: {dark} of {w * h}")

# Blank pages and error pages are nearly one colour.
top = max(counts.values())
ok = top < 0.95 * w * h
failed |= not ok
print(f"{'ok  ' if ok else 'FAIL'} not blank: the commonest colour covers {100 * top / (w * h):.1f}%")
sys.exit(1 if failed else 0)
