//! Knuth's Algorithm C (DLX/XCC).
