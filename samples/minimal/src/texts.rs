//! The app's own words in `get_provider_info`, in the languages the consent screens ship in:
//! the default text, then one translation per language tag. Like the app's `strings.xml`, this
//! is text, not integration code.

use cetp_provider::Localized;

/// What the provider offers.
pub fn description() -> Localized {
    Localized::new("Greets people; the smallest CETP provider")
        .with("ar", "يُلقي التحية على الناس؛ أصغر مزوّد CETP")
        .with("de", "Begrüßt Menschen; der kleinste CETP-Anbieter")
        .with("es", "Saluda a las personas; el proveedor CETP más pequeño")
        .with("fr", "Salue les gens ; le plus petit fournisseur CETP")
        .with("hi", "लोगों का अभिवादन करता है; सबसे छोटा CETP प्रदाता")
        .with("ja", "あいさつをします。最小の CETP プロバイダです")
        .with("pt-BR", "Cumprimenta as pessoas; o menor provedor CETP")
        .with("zh-CN", "向人问好；最小的 CETP 提供方")
}
