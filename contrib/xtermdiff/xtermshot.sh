#!/bin/sh
# xtermshot.sh COLS ROWS STREAM OUT: a real xterm of COLS x ROWS, on the X
# display $DISPLAY (an Xvfb will do), draws the bytes of the file STREAM,
# then prints its screen's text to OUT (xterm's print-screen, MC 0, through
# its printerCommand resource).
set -e
cols=$1 rows=$2 stream=$3 out=$4
rm -f "$out"
inner=$(mktemp)
trap 'rm -f "$inner"' EXIT
cat >"$inner" <<EOI
#!/bin/sh
stty raw -echo
cat '$stream'
printf '\033[?19h\033[i'
sleep 0.5
EOI
chmod +x "$inner"
timeout 10 xterm -geometry "${cols}x${rows}" -xrm "XTerm*printerCommand: cat > '$out'" \
	-xrm 'XTerm*printAttributes: 0' -e "$inner"
