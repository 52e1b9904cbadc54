//! The seeded generator (SPEC §5).
