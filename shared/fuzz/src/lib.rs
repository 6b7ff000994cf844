//! The properties the fuzz targets check, in a library so that krypto-core's
//! own tests run the committed inputs through the very same code on stable
//! (`shared/tests/fuzz_corpus.rs` includes `properties.rs` by path).

pub mod properties;
