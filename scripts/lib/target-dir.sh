# Sourced by scripts/firmware, code-size, same-verdicts and demo (not a command).
#
# target_dir DIR: where cargo puts the build output of the workspace in DIR.
# CARGO_TARGET_DIR or a cargo config may move it from DIR/target, and a path written as
# DIR/target/... would then run a stale build (scripts/firmware once measured a stale
# firmware image that way).
target_dir() {
    (cd "$1" && cargo metadata --no-deps --format-version 1 |
        grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
}
