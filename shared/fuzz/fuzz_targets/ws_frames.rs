#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| krypto_core_fuzz::properties::ws_frames(data));
