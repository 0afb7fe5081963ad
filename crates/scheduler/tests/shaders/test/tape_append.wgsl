//!fragment
// Test helper: appends a word to a tape (word 0: its length), so a test can read which passes
// ran and in which order. Each includer declares `tape: array<u32>` (read_write) at its binding.

fn append(word: u32) {
    let n = tape[0];
    if n + 1u < arrayLength(&tape) {
        tape[n + 1u] = word;
        tape[0] = n + 1u;
    }
}
