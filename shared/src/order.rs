//! Fill orders (SPEC §6).
