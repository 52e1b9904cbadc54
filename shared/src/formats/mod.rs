//! Community notations (filled in by the formats work).
