//! `export_provider!` in a module of the library, not at its root: the build function is still
//! exported under the symbol host tooling (`cargo cetp`'s runner) links against, and
//! `JNI_OnLoad` is still defined.

#![cfg(feature = "jni")]

use cetp_provider::{App, ProviderBuilder};

mod agent_tools {
    use cetp_provider::{App, Provider, ProviderBuilder, tool, tools};

    /// Says hello.
    #[tool]
    fn hello() -> &'static str {
        "hello"
    }

    fn provider(_app: &App) -> ProviderBuilder {
        Provider::builder("Hello").tools(tools![hello])
    }

    cetp_provider::export_provider!(provider);
}

unsafe extern "Rust" {
    #[link_name = "__cetp_provider_builder"]
    fn provider_builder(app: &App) -> Result<ProviderBuilder, String>;
}

#[test]
fn the_build_function_is_found_by_its_symbol_from_a_module() {
    let app = App::new("com.example.hello", std::env::temp_dir());
    // SAFETY: `export_provider!` above defines the symbol with this signature.
    let builder = unsafe { provider_builder(&app) }.expect("the build function builds");
    let provider = builder.build().expect("the provider builds");
    assert_eq!(
        provider.tool_named("hello").map(|t| t.name()).ok(),
        Some("hello")
    );
    // The JNI entry point is defined in the module too (it is exported by the cdylib).
    let _: extern "system" fn(*mut core::ffi::c_void, *mut core::ffi::c_void) -> i32 =
        agent_tools::JNI_OnLoad;
}
