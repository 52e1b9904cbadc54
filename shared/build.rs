// Whether the community data sits beside this clone (`../shared/data`
// from the repository root). Tests that need it carry
// `#[cfg_attr(e2_no_data, ignore = "...")]`: on a clone without the data
// they are reported as ignored, with the reason, rather than passing.

use std::path::PathBuf;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let data = PathBuf::from(manifest).join("../../shared/data");
    println!("cargo:rustc-check-cfg=cfg(e2_no_data)");
    if data.is_dir() {
        // Removing the directory (or changing a file in it) reruns this.
        println!("cargo:rerun-if-changed={}", data.display());
    } else {
        // Cargo reruns a script that watches a missing path on every build,
        // rebuilding the crate each time; watch this file instead. After
        // putting the data in place, `touch build.rs` (or `cargo clean`).
        println!("cargo:rerun-if-changed=build.rs");
        println!("cargo:rustc-cfg=e2_no_data");
    }
}
