//! UniFFI's bindings generator, built from the same `uniffi` version as the library.
fn main() {
    uniffi::uniffi_bindgen_main()
}
