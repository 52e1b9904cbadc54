//! SVG rendering of a board.
