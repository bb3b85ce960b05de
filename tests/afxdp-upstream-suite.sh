#! /bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The ovs-afxdp authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# afxdp-upstream-suite.sh run [OPTION...] OVS_TREE OUTDIR [SELECTION...]
# afxdp-upstream-suite.sh compare [--log-filter FILE] OURS_RESULTS UPSTREAM_RESULTS
# afxdp-upstream-suite.sh reason LOG
#
# 'run' runs Open vSwitch's own AF_XDP system test suite
# (tests/system-afxdp-testsuite of the built OVS tree OVS_TREE: its AF_XDP
# tests and the system-traffic tests, with every port of type afxdp) with
# the programs of that tree, and writes what happened to OUTDIR:
#
#   OUTDIR/results     one line per test: NUMBER STATUS TITLE, where STATUS
#                      is ok, FAILED, skipped or xfail (an expected failure)
#   OUTDIR/reasons     one line per failed test: NUMBER REASON, a guess from
#                      its log (see reason_of below)
#   OUTDIR/summary     the counts and the wall-clock time
#   OUTDIR/logs/N.log  the suite's log of test N (the whole test log when
#                      the test failed)
#   OUTDIR/failed/N/   the directory of failed test N (daemon logs,
#                      databases), as autotest left it
#
# SELECTION is what the suite itself accepts to pick tests (numbers, ranges,
# -k KEYWORDS); none means every test.  --titles FILE keeps only the tests
# whose titles are lines of FILE ('#' comments allowed); a title that the
# suite does not have is an error.
#
# Every test runs on its own, in fresh network, mount and PID namespaces
# (tests/afxdp-isolate.sh beside this script), because the upstream tests
# use fixed names (namespaces at_ns0, at_ns1, veths p0/ovs-p0) and could
# not otherwise run side by side or on a machine that has other users.
# --jobs N runs N tests at a time (default 2); --timeout S bounds each test
# (default 600 s; a test stopped this way counts as FAILED).
#
# --recheck runs each failed test once more after the others, as OVS's own
# "make check RECHECK=yes" does in its CI: some of OVS's tests race with
# OVS itself (e.g. a revalidator dumping flows that revalidator/purge is
# deleting logs "failed to flow_get", which the test's final log check
# rejects).  A test that passes the second time counts as passed, and is
# listed, with why it failed the first time, in OUTDIR/rechecked and at
# the end of the output; its first run's log and directory stay, as
# OUTDIR/logs/N.first.log and OUTDIR/failed/N.first/.
#
# The last line printed is "upstream-suite: N passed, N failed, N skipped".
# The exit status is 0 when no test failed.
#
# 'reason' prints the reason that 'run' gives for a failed test whose suite
# log is LOG.
#
# 'recheck-merge' prints the results of a run with --recheck: FIRST_RESULTS
# with each test's line replaced by its line in RECHECK_RESULTS, if any;
# and writes to standard error, for each test that failed first and then
# passed, "NUMBER passed on recheck; first: REASON" (the reason from
# FIRST_REASONS).
#
# 'compare [--log-filter FILE]' takes two 'results' files written by 'run'.
# With --log-filter, a test that upstream's provider failed only at the
# final check of ovs-vswitchd's log, because of lines that all match the
# extended regular expressions in FILE (what that provider logs on this
# machine: tests/afxdp-upstream-suite-filter.txt), counts as passed by it.  It lists the tests
# passing only with ours, counts how ours fared on the tests that upstream's
# provider failed only at the final log check (when upstream's 'reasons'
# file is beside its results), then lists the tests that passed in
# UPSTREAM_RESULTS but not in OURS_RESULTS and exits 1 if there is any.

set -u

me=afxdp-upstream-suite
here=$(cd "$(dirname "$0")" && pwd)

usage() {
    sed -n '16,19s/^# \{0,1\}//p' "$0"
}

die() {
    echo "$me: $*" >&2
    exit 2
}

# count STATUS FILE: the number of results with STATUS.
count() {
    awk -v s="$1" '$2 == s { n++ } END { print n + 0 }' "$2"
}

# run_one NUMBER WORKDIR: runs test NUMBER of the suite in its own
# namespaces, with WORKDIR as the suite's directory, and appends its result
# to $out/results.
run_one() {
    local n=$1 work=$2 status line title dir rc reason

    rm -rf "$work/$suite_name.dir" "$work/$suite_name.log"
    (cd "$work" && "$here/afxdp-isolate.sh" timeout -k 10 "$timeout" \
        "$SHELL" "$tree/tests/$suite_name" -C "$work" \
        AUTOTEST_PATH="$autotest_path" "$n") > "$work/stdout" 2>&1
    rc=$?

    # Autotest prints "  N: TITLE   RESULT" for each test it ran.
    line=$(grep -E "^ *$n: " "$work/stdout" | tail -n 1)
    case $line in
        *" ok") status=ok ;;
        *" skipped ("*) status=skipped ;;
        *" expected failure ("*) status=xfail ;;
        *) status=FAILED ;;
    esac
    title=$(grep -E "^ *$n: " "$list" | head -n 1 |
            sed -E 's/^ *[0-9]+: [^ ]+ +//')
    test -f "$work/$suite_name.log" &&
        cp "$work/$suite_name.log" "$out/logs/$n.log"
    if test $status = FAILED; then
        cat "$work/stdout" >> "$out/logs/$n.log"
        # Autotest pads the directory's name with zeros (e.g. 007).
        dir=$(find "$work/$suite_name.dir" -mindepth 1 -maxdepth 1 \
                   -type d -regex ".*/0*$n" 2>/dev/null | head -n 1)
        if test -n "$dir"; then
            rm -rf "$out/failed/$n"
            mv "$dir" "$out/failed/$n"
        fi
    fi
    printf '%s %s %s\n' "$n" "$status" "$title" >> "$out/results"
    printf '%4s: %-64.64s %s\n' "$n" "$title" "$status"
    if test $status = FAILED; then
        # timeout(1) exits with 124, or 137 when it had to use SIGKILL.
        case $rc in
            124|137) reason="killed: no result after $timeout s" ;;
            *) reason=$(reason_of "$out/logs/$n.log") ;;
        esac
        printf '%s %s\n' "$n" "$reason" >> "$out/reasons"
    fi
}

# reason_of LOG: a one-line guess at why the failed test whose suite log is
# LOG failed, from the last command the test ran:
#   "kernel: no link type TYPE"        ip link add said "Unknown device type"
#                                      (a kernel module this machine lacks)
#   "log: MODULE|LEVEL|MESSAGE"        the final check of ovs-vswitchd's log
#                                      found this unexpected line (the first)
#   "wait failed: CONDITION"           OVS_WAIT_UNTIL/WHILE gave up
#   "timed out (OVS_CTL_TIMEOUT): CMD" an ovs-* command got no answer from
#                                      a daemon in time
#   "COMMAND"                          any other failing check
# ('run' says "killed: ..." instead for a test that hit its --timeout.)
reason_of() {
    sed -n '/^## Detailed failed tests/,/^## config.log/p' "$1" | awk '
        function trim(s) { sub(/^[^ ]*\.at:[0-9]+: /, "", s); return s }
        /^[^ ]*\.at:[0-9]+: waiting (until|while) / {
            wait = trim($0); sub(/\.\.\.$/, "", wait); next
        }
        /^[^ ]*\.at:[0-9]+: wait failed/ { failed_wait = wait; next }
        /^[^ ]*\.at:[0-9]+: (hard failure|exit code was)/ { next }
        /^[^ ]*\.at:[0-9]+: / {
            cmd = $0; first_log = ""; unknown_type = 0; alarm = 0
            heredoc = ($0 ~ /<< NS_EXEC_HEREDOC$/); next
        }
        heredoc { cmd = cmd " " $0; heredoc = 0; next }
        /^\+Error: Unknown device type/ { unknown_type = 1; next }
        / Alarm clock / { alarm = 1; next }
        /^\+[0-9-]+T[0-9:.]+Z\|[0-9]+\|/ && first_log == "" {
            line = substr($0, 2); sub(/^[^|]*\|[^|]*\|/, "", line)
            first_log = line; next
        }
        END {
            if (unknown_type) {
                type = "?"
                if (match(cmd, /type [a-z0-9]+/))
                    type = substr(cmd, RSTART + 5, RLENGTH - 5)
                print "kernel: no link type " type " (Unknown device type)"
            } else if (alarm) {
                print "timed out (OVS_CTL_TIMEOUT): " substr(trim(cmd), 1, 70)
            } else if (cmd ~ /check_logs/ && first_log != "") {
                print "log: " substr(first_log, 1, 100)
            } else if (failed_wait != "") {
                print "wait failed: " substr(failed_wait, 1, 80)
            } else {
                print substr(trim(cmd), 1, 100)
            }
        }'
}

# next_test: prints the next test number still to run, or nothing.  Called
# by several workers at once; the queue file is guarded by a lock.
next_test() {
    (
        flock 9
        head -n 1 "$out/queue"
        sed -i 1d "$out/queue"
    ) 9> "$out/queue.lock"
}

worker() {
    local work=$out/work/$1 n
    mkdir -p "$work"
    # Absolute paths, so that the suite can run from any directory.
    cat > "$work/atconfig" <<EOF
# Written by $me.
at_testdir='tests'
abs_builddir='$tree/tests'
at_srcdir='$tree/tests'
abs_srcdir='$tree/tests'
at_top_srcdir='$tree'
abs_top_srcdir='$tree'
at_top_build_prefix='$tree/'
abs_top_builddir='$tree'
at_top_builddir=\$at_top_build_prefix
EXEEXT=''
AUTOTEST_PATH='tests'
SHELL=\${CONFIG_SHELL-'$SHELL'}
EOF
    echo ". '$tree/tests/atlocal'" > "$work/atlocal"
    while n=$(next_test) && test -n "$n"; do
        run_one "$n" "$work"
    done
}

do_run() {
    jobs=2
    timeout=600
    titles=
    recheck=false
    while test $# -gt 0; do
        case $1 in
            --recheck) recheck=true; shift ;;
            --jobs) jobs=$2; shift 2 ;;
            --jobs=*) jobs=${1#--jobs=}; shift ;;
            --titles) titles=$2; shift 2 ;;
            --titles=*) titles=${1#--titles=}; shift ;;
            --timeout) timeout=$2; shift 2 ;;
            --timeout=*) timeout=${1#--timeout=}; shift ;;
            --) shift; break ;;
            -*) break ;;
            *) break ;;
        esac
    done
    test $# -ge 2 || { usage >&2; exit 2; }
    tree=$(cd "$1" && pwd) || die "no OVS tree $1"
    out=$2
    shift 2

    test "$(id -u)" = 0 || die "needs root (the tests create namespaces and XDP programs)"
    suite_name=system-afxdp-testsuite
    test -f "$tree/tests/$suite_name" ||
        die "$tree/tests/$suite_name is missing (make -C $tree tests/$suite_name)"
    test -f "$tree/tests/atlocal" ||
        die "$tree/tests/atlocal is missing (make -C $tree tests/atlocal)"
    test -x "$tree/vswitchd/ovs-vswitchd" ||
        die "$tree is not built ($tree/vswitchd/ovs-vswitchd is missing)"
    SHELL=${SHELL:-/bin/sh}
    autotest_path=$tree/utilities:$tree/vswitchd:$tree/ovsdb:$tree/vtep:$tree/tests:$tree/ipsec

    rm -rf "$out"
    mkdir -p "$out/logs" "$out/failed" "$out/work" || die "cannot create $out"
    out=$(cd "$out" && pwd)
    list=$out/list
    : > "$out/results"
    : > "$out/reasons"

    # The suite lists the tests that SELECTION picks, with their numbers.
    # (Isolated too: reading OVS's atlocal creates and deletes a veth.)
    "$here/afxdp-isolate.sh" "$SHELL" "$tree/tests/$suite_name" \
        -C "$tree/tests" --list "$@" > "$list" ||
        die "the suite cannot list its tests"
    grep -E '^ *[0-9]+: ' "$list" | awk '{ sub(":", "", $1); print $1 }' \
        > "$out/queue"
    if test -n "$titles"; then
        # Only the tests named in the titles file, each of which must exist.
        test -f "$titles" || die "no titles file $titles"
        sed -E 's/^ *([0-9]+): [^ ]+ +/\1 /' "$list" |
            grep -E '^[0-9]+ ' > "$out/titled"
        awk 'NR == FNR { if ($0 !~ /^(#|$)/) want[$0] = 1; next }
             { n = $1; $1 = ""; sub(/^ /, "") }
             $0 in want { print n; found[$0] = 1 }
             END { for (t in want) if (!(t in found))
                       print "missing: " t > "/dev/stderr" }' \
            "$titles" "$out/titled" > "$out/queue" 2> "$out/missing"
        if test -s "$out/missing"; then
            sed "s/^/$me: $titles: no such test in the suite: /" \
                "$out/missing" >&2
            exit 2
        fi
    fi
    total=$(wc -l < "$out/queue")
    test "$total" -gt 0 || die "no test selected by: $*"

    echo "$me: $total tests of $tree/tests/$suite_name, $jobs at a time," \
         "each in its own namespaces; results in $out"
    start=$(date +%s)
    for i in $(seq 1 "$jobs"); do
        worker "$i" &
    done
    wait
    sort -n -o "$out/results" "$out/results"
    sort -n -o "$out/reasons" "$out/reasons"
    : > "$out/rechecked"
    if $recheck && test "$(count FAILED "$out/results")" -gt 0; then
        recheck_failed
    fi
    end=$(date +%s)
    passed=$(count ok "$out/results")
    failed=$(count FAILED "$out/results")
    skipped=$(count skipped "$out/results")
    xfail=$(count xfail "$out/results")
    secs=$((end - start))
    {
        echo "suite: $tree/tests/$suite_name $*"
        echo "ovs-vswitchd: $("$tree/vswitchd/ovs-vswitchd" --version | head -n 1)"
        echo "tests: $total, $jobs at a time"
        echo "passed: $passed"
        echo "failed: $failed"
        echo "skipped: $skipped"
        echo "expected failures: $xfail"
        echo "passed on recheck: $(wc -l < "$out/rechecked")"
        echo "duration: ${secs}s ($((secs / 60)) min $((secs % 60)) s)"
    } > "$out/summary"
    echo
    if test "$failed" -gt 0; then
        echo "Failed tests (number, title; why, as far as the log tells):"
        awk 'NR == FNR { why[$1] = substr($0, length($1) + 2); next }
             $2 == "FAILED" { n = $1; $1 = $2 = ""; sub(/^ +/, "")
                              printf "%4s %s\n       %s\n", n, $0, why[n] }' \
            "$out/reasons" "$out/results"
        echo
    fi
    if test -s "$out/rechecked"; then
        echo "Failed, then passed on recheck (number; why it failed first):"
        sed 's/^/   /' "$out/rechecked"
        echo
    fi
    echo "$me: $total tests in $((secs / 60)) min $((secs % 60)) s," \
         "$xfail expected failures; details in $out"
    echo "upstream-suite: $passed passed, $failed failed, $skipped skipped"
    test "$failed" = 0
}

# recheck_failed: runs each test that failed in $out/results once more,
# one at a time, and merges the results (see 'recheck-merge').
recheck_failed() {
    local n
    awk '$2 == "FAILED" { print $1 }' "$out/results" > "$out/recheck-queue"
    echo "$me: rechecking $(wc -l < "$out/recheck-queue") failed test(s) once"
    mv "$out/results" "$out/results.first"
    mv "$out/reasons" "$out/reasons.first"
    : > "$out/results"
    : > "$out/reasons"
    while read -r n; do
        mv "$out/logs/$n.log" "$out/logs/$n.first.log" 2>/dev/null
        if test -d "$out/failed/$n"; then
            rm -rf "$out/failed/$n.first"
            mv "$out/failed/$n" "$out/failed/$n.first"
        fi
        run_one "$n" "$out/work/1"
    done < "$out/recheck-queue"
    recheck_merge "$out/results.first" "$out/reasons.first" \
        "$out/results" > "$out/results.merged" 2> "$out/rechecked"
    mv "$out/results.merged" "$out/results"
    # The reasons of the tests that failed twice: the second run's.
    sort -n -o "$out/reasons" "$out/reasons"
}

# recheck_merge FIRST_RESULTS FIRST_REASONS RECHECK_RESULTS: see the top.
recheck_merge() {
    awk -v results="$1" -v reasons="$2" '
        FILENAME == reasons { why[$1] = substr($0, length($1) + 2); next }
        FILENAME == results { order[++n] = $1; first[$1] = $0
                              st[$1] = $2; next }
        { again[$1] = $0; st2[$1] = $2 }
        END {
            for (i = 1; i <= n; i++) {
                t = order[i]
                if (t in again) {
                    print again[t]
                    if (st[t] == "FAILED" && st2[t] == "ok")
                        printf "%s passed on recheck; first: %s\n", t,
                               why[t] > "/dev/stderr"
                } else {
                    print first[t]
                }
            }
        }' "$2" "$1" "$3"
}

# log_filtered LOG FILTER: true if the failed test whose suite log is LOG
# failed only at the final check of ovs-vswitchd's log, and every line that
# check found matches one of the extended regular expressions of FILTER
# (the line without its timestamp and sequence number, as reason_of
# prints it).
log_filtered() {
    sed -n '/^## Detailed failed tests/,/^## config.log/p' "$1" |
    awk -v filter="$2" '
        BEGIN {
            while ((getline re < filter) > 0)
                if (re !~ /^(#|$)/) pat[++n] = re
        }
        /^[^ ]*\.at:[0-9]+: (hard failure|exit code was)/ { next }
        /^[^ ]*\.at:[0-9]+: / { cmd = $0; found = 0; bad = 0; next }
        /^\+[0-9-]+T[0-9:.]+Z\|[0-9]+\|/ {
            line = substr($0, 2); sub(/^[^|]*\|[^|]*\|/, "", line)
            found++
            ok = 0
            for (i = 1; i <= n; i++)
                if (line ~ pat[i]) { ok = 1; break }
            if (!ok) bad++
        }
        END { exit !(cmd ~ /check_logs/ && found && !bad) }'
}

do_compare() {
    filter=
    case ${1-} in
        --log-filter) filter=$2; shift 2 ;;
        --log-filter=*) filter=${1#--log-filter=}; shift ;;
    esac
    test $# = 2 || { usage >&2; exit 2; }
    ours=$1
    upstream=$2
    test -f "$ours" || die "no results file $ours"
    test -f "$upstream" || die "no results file $upstream"
    if test -n "$filter"; then
        # Upstream's failures that only the filter's lines made: passed.
        test -f "$filter" || die "no log filter $filter"
        local logs n st rest filtered
        logs=$(dirname "$upstream")/logs
        filtered=$(dirname "$upstream")/results.filtered
        while read -r n st rest; do
            if test "$st" = FAILED && test -f "$logs/$n.log" &&
               log_filtered "$logs/$n.log" "$filter"; then
                st=ok
            fi
            echo "$n $st $rest"
        done < "$upstream" > "$filtered"
        echo "Upstream's provider with the log filter $filter:" \
             "$(count ok "$filtered") passed, $(count FAILED "$filtered")" \
             "failed, $(count skipped "$filtered") skipped" \
             "(without it: $(count ok "$upstream") passed)"
        upstream=$filtered
    fi

    # join on test number: NUMBER OURS_STATUS UPSTREAM_STATUS.
    pairs=$(join -j 1 -o 0,1.2,2.2 <(sort -k1,1 "$ours") \
                                   <(sort -k1,1 "$upstream") | sort -n)
    worse=$(echo "$pairs" | awk '$3 == "ok" && $2 != "ok"')
    better=$(echo "$pairs" | awk '$2 == "ok" && $3 != "ok"')
    if test -n "$better"; then
        echo "Passing with ours only (number, ours, upstream):"
        echo "$better"
    fi
    # Upstream's failures that came only at the final check of
    # ovs-vswitchd's log: the traffic part of those tests passed.
    reasons=$(dirname "$upstream")/reasons
    if test -f "$reasons"; then
        echo "$pairs" | awk 'NR == FNR { if ($2 == "log:") atlog[$1] = 1; next }
            $1 in atlog { n++; s[$2]++ }
            END { if (n) { printf "Failed with upstream'"'"'s provider only at its final log check: %d; with ours:", n
                           split("ok FAILED skipped xfail", order)
                           for (i = 1; i <= 4; i++)
                               if (s[order[i]]) printf " %d %s", s[order[i]], order[i]
                           print "" } }' "$reasons" -
    fi
    if test -n "$worse"; then
        echo "Passing with upstream's provider but not ours (number, ours, upstream):"
        echo "$worse"
        return 1
    fi
    echo "$me: every test that passes with upstream's provider passes with ours"
}

case ${1-} in
    run) shift; do_run "$@" ;;
    reason) test $# = 2 || { usage >&2; exit 2; }; reason_of "$2" ;;
    compare) shift; do_compare "$@" ;;
    recheck-merge) test $# = 4 || { usage >&2; exit 2; }
                   recheck_merge "$2" "$3" "$4" ;;
    -h|--help) usage ;;
    *) usage >&2; exit 2 ;;
esac
