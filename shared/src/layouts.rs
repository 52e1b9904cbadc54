//! Hint layouts and their pinned-seam floor.
