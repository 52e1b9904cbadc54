// The community-data check of `shared/build.rs`, the one place it is
// written: it sets `cfg(e2_no_data)` for this crate's tests too.
include!("../shared/build.rs");
