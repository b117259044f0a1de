# The sample's tests (the deepterm demo sample). Run: sh test.sh
. ./calc.sh
failed=0
check() {
    if [ "$2" = "$3" ]; then
        echo "ok   $1"
    else
        echo "FAIL $1: got $2, expected $3"
        failed=$((failed + 1))
    fi
}
check "add 2 3" "$(add 2 3)" 5
check "sub 7 4" "$(sub 7 4)" 3
check "sub 5 5" "$(sub 5 5)" 0
if [ "$failed" -eq 0 ]; then
    echo "demo tests: all passed"
else
    echo "demo tests: $failed failed"
    exit 1
fi
