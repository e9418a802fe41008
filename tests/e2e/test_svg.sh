#!/usr/bin/env bash
# -f svg: a flame graph as one SVG document (issue 48 item 6).  Each
# frame's weight (data-value) is the sum of the folded lines under its path
# from the same recording, as flamegraph.pl would draw it; its width that
# weight times the graph's scale; a child inside its parent; the XML
# parses and Chromium lays every frame out as its rect says; the live run
# writes the same kind of file and keeps the command's stdout out of it.
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/uprobe-workload
E="-e uprobe:$W:outer -e uprobe:$W:spin_inner -e uprobe:$W:sleep_inner -e uprobe:$W:recurse"
# shellcheck disable=SC2086
"$IPROF" record -q -o "$TMP/a.rec" $E -- "$W" --calls 40 --depth 3 >"$TMP/truth" 2>"$TMP/err"
check "record: exit" "$?" 0

# the frames against the folded lines; prints "ok" or what differs
verify() { # SVG FOLDED
	python3 - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
scale = float(root.get("data-scale"))
want = {}
for line in open(sys.argv[2]):
    path, v = line.rsplit(" ", 1)
    parts = path.split(";")
    for i in range(1, len(parts) + 1):
        p = ";".join(parts[:i])
        want[p] = want.get(p, 0) + int(v)
got, box, bad = {}, {}, []
for g in root.findall("s:g", ns):
    p, v = g.get("data-path"), int(g.get("data-value"))
    r = g.find("s:rect", ns)
    x, w = float(r.get("x")), float(r.get("width"))
    got[p] = v
    box[p] = (x, w)
    if abs(w - v * scale) > 0.01:
        bad.append("%s: width %.2f, weight %d x scale %.3g" % (p, w, v, scale))
    if not g.find("s:title", ns).text.startswith(p.split(";")[-1] + ": "):
        bad.append("%s: title %r" % (p, g.find("s:title", ns).text))
for p, (x, w) in box.items():
    if ";" in p:
        px, pw = box[p.rsplit(";", 1)[0]]
        if x < px - 0.01 or x + w > px + pw + 0.01:
            bad.append("%s outside its parent" % p)
drawn = {p: v for p, v in want.items() if v * scale >= 0.1}
if got != drawn:
    bad.append("frames %r, folded sums %r" % (sorted(got.items()), sorted(drawn.items())))
print("; ".join(bad) if bad else "ok %d" % len(got))
PY
}

for w in self oncpu count; do
	"$IPROF" report -f svg --weight $w "$TMP/a.rec" >"$TMP/$w.svg" 2>/dev/null
	check "report -f svg --weight $w: exit" "$?" 0
	"$IPROF" report -f folded --weight $w "$TMP/a.rec" >"$TMP/$w.folded" 2>/dev/null
	check "--weight $w: frames = folded sums" "$(verify "$TMP/$w.svg" "$TMP/$w.folded" | cut -d' ' -f1)" ok
done
# by count every path is drawn (by self time, a path the compensation
# takes to 0 under load is not: verify() expects what the folded sums say)
check "frames drawn (outer, its three children, recurse's 3 levels)" \
	"$(verify "$TMP/count.svg" "$TMP/count.folded")" "ok 6"
check "outer's tooltip: its calls" \
	"$(grep -o 'data-path="outer" data-value="[0-9]*"><title>outer: [0-9]* calls' "$TMP/self.svg" | grep -o '[0-9]* calls')" \
	"$(truth outer.count "$TMP/truth") calls"

# rendered by a browser (Debian's chromium, headless): a copy of the SVG
# with a script that measures each frame's box as laid out; every frame
# drawn, as wide and as far right as its rect says (the viewBox is 1:1)
render() { # SVG -> "ok N" or what differs
	python3 - "$1" "$TMP/render.svg" <<'PY'
import sys
s = open(sys.argv[1]).read()
js = """<script><![CDATA[
var gs = document.querySelectorAll("g.f");
for (var i = 0; i < gs.length; i++) {
  var b = gs[i].querySelector("rect").getBoundingClientRect();
  gs[i].setAttribute("data-rw", b.width.toFixed(2));
  gs[i].setAttribute("data-rx", b.left.toFixed(2));
}
document.documentElement.setAttribute("data-rendered", gs.length);
]]></script>"""
open(sys.argv[2], "w").write(s.replace("</svg>", js + "</svg>"))
PY
	timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1300,900 \
		--virtual-time-budget=2000 --dump-dom "file://$TMP/render.svg" >"$TMP/dom" 2>"$TMP/chromium.err"
	python3 - "$TMP/dom" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
bad = []
if "parsererror" in d or 'data-rendered="' not in d:
    print("not rendered: " + d[:300].replace("\n", " "))
    sys.exit()
gs = re.findall(r'<g class="f" data-path="([^"]*)"[^>]*data-rw="([0-9.]+)" data-rx="([0-9.]+)"[^>]*>.*?<rect x="([0-9.]+)"[^>]*width="([0-9.]+)"', d, re.S)
for p, rw, rx, x, w in gs:
    if abs(float(rw) - float(w)) > 0.5 or abs(float(rx) - float(x)) > 0.5:
        bad.append("%s: drawn %s at %s, rect %s at %s" % (p, rw, rx, w, x))
n = int(re.search(r'data-rendered="([0-9]+)"', d).group(1))
if n != len(gs):
    bad.append("%d frames rendered, %d measured" % (n, len(gs)))
print("; ".join(bad) if bad else "ok %d" % n)
PY
}
if command -v chromium >/dev/null; then
	check "chromium renders every frame where its rect says" "$(render "$TMP/count.svg")" "ok 6"
elif [ "${IPROF_REQUIRE_E2E:-0}" = 1 ]; then
	bad "chromium is not installed: the SVG is not rendered (.ci/run installs it)"
else
	echo "SKIP - chromium is not installed (apt-get install chromium): the SVG is not rendered"
fi

# --max-depth 1: only the top level, as wide as the whole subtree
"$IPROF" report -f svg --max-depth 1 "$TMP/a.rec" >"$TMP/d1.svg" 2>/dev/null
check "--max-depth 1: one frame" "$(grep -c '<g class="f"' "$TMP/d1.svg")" 1
check "--max-depth 1: outer's weight is the whole tree's" \
	"$(grep -o 'data-path="outer" data-value="[0-9]*"' "$TMP/d1.svg" | grep -o '[0-9]*"$' | tr -d '"')" \
	"$(awk '{ s += $NF } END { print s }' "$TMP/self.folded")"

# live: the file, and the command's stdout not in it
# shellcheck disable=SC2086
"$IPROF" -q -f svg -o "$TMP/live.svg" $E -- "$W" --calls 10 >"$TMP/live.out" 2>/dev/null
check "live -f svg -o: exit" "$?" 0
check "live: the command's stdout its own" "$(truth outer.count "$TMP/live.out")" 10
check "live: an SVG document" "$(python3 -c 'import sys, xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().tag)' "$TMP/live.svg")" \
	"{http://www.w3.org/2000/svg}svg"
# shellcheck disable=SC2086
"$IPROF" -q -f svg -o - $E -- "$W" --calls 10 >"$TMP/live2.svg" 2>"$TMP/live2.err"
check "live -f svg -o -: no command output in it" "$(grep -c 'outer.count=' "$TMP/live2.svg")" 0
finish
