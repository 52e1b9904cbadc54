//! The bitmask backtracker.
