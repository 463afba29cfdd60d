#!/bin/sh
# Puts promtool (the Prometheus rule checker and rule unit tester) at DIR/promtool, taken from
# Debian's `prometheus` package without installing it: `apt-get download` fetches the .deb into
# DIR, `dpkg-deb --fsys-tarfile` reads its files and only ./usr/bin/promtool is kept. No package
# is installed, no maintainer script runs, no service is enabled or started; the Prometheus
# server never lands on the machine. Run by `make deploy-promtool` (mk/deploy.mk).
#
#   scripts/fetch-promtool.sh DIR [PACKAGE]     PACKAGE: prometheus (default) or prometheus=VERSION
#
# Exit 0 with DIR/promtool in place (and DIR/VERSION naming the .deb it came from); otherwise
# exit 1 with the reason on standard error and in DIR/NOT-RUN, which `make deploy-rules` prints.
# When apt knows no such package (package lists never downloaded, as on a fresh container), the
# lists are refreshed with `apt-get update` as root or with `sudo -n`, the only change outside
# DIR; nothing is refreshed without those rights.
set -u

dir=${1:?usage: fetch-promtool.sh DIR [PACKAGE]}
package=${2:-prometheus}
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
rm -f "$dir/NOT-RUN"

fail() {
    rm -rf "$dir/download" "$dir/promtool.part"
    echo "$1" > "$dir/NOT-RUN"
    echo "fetch-promtool: $1" >&2
    exit 1
}

if [ -x "$dir/promtool" ] && "$dir/promtool" --version >/dev/null 2>&1; then
    exit 0
fi
command -v apt-get >/dev/null 2>&1 || fail "no apt-get on this machine (promtool comes from Debian's prometheus package)"
command -v dpkg-deb >/dev/null 2>&1 || fail "no dpkg-deb on this machine"

work="$dir/download"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
log="$dir/apt-get.log"
download() {
    (cd "$work" && apt-get download "$package") > "$log" 2>&1
}
if ! download; then
    if [ "$(id -u)" = 0 ]; then sudo=; else sudo="sudo -n"; fi
    echo "fetch-promtool: apt-get download $package failed; refreshing the package lists (apt-get update)" >&2
    if ! $sudo apt-get update -q >> "$log" 2>&1; then
        fail "apt-get download $package failed and the package lists could not be refreshed: $(grep -E '^(E|W):' "$log" | tail -n 1) (full output: $log)"
    fi
    download || fail "apt-get download $package failed: $(grep -E '^E:' "$log" | tail -n 1) (full output: $log)"
fi

deb=$(ls "$work"/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "apt-get download $package left no .deb in $work"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/promtool > "$dir/promtool.part" 2>> "$log" \
    && [ -s "$dir/promtool.part" ] \
    || { rm -f "$dir/promtool.part"; fail "$(basename "$deb") has no ./usr/bin/promtool"; }
chmod 755 "$dir/promtool.part" && mv "$dir/promtool.part" "$dir/promtool"
basename "$deb" > "$dir/VERSION"
rm -rf "$work"
"$dir/promtool" --version >/dev/null 2>&1 || fail "$dir/promtool (from $(cat "$dir/VERSION")) does not run"
