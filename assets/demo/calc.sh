# Small arithmetic helpers (the deepterm demo sample).

# Prints the sum of two whole numbers.
add() {
    echo $(($1 + $2))
}

# Prints the first number minus the second.
sub() {
    echo $(($2 - $1))
}
