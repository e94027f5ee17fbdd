//! The app's own words on the consent screens and in `get_provider_info`, in the languages the
//! screens ship in: the default text, then one translation per language tag. Like the app's
//! `strings.xml`, this is text, not integration code.

use cetp_provider::Localized;

/// What the provider offers.
pub fn description() -> Localized {
    Localized::new("The user's spending: totals per category, over time and per merchant")
        .with(
            "ar",
            "إنفاق المستخدم: الإجماليات حسب الفئة وعبر الزمن وحسب التاجر",
        )
        .with(
            "de",
            "Die Ausgaben des Nutzers: Summen pro Kategorie, im Zeitverlauf und pro Händler",
        )
        .with(
            "es",
            "Los gastos del usuario: totales por categoría, a lo largo del tiempo y por comercio",
        )
        .with(
            "fr",
            "Les dépenses de l’utilisateur : totaux par catégorie, dans le temps et par commerçant",
        )
        .with(
            "hi",
            "उपयोगकर्ता का खर्च: श्रेणी के अनुसार, समय के साथ और व्यापारी के अनुसार कुल",
        )
        .with("ja", "ユーザーの支出：カテゴリ別、期間別、店舗別の合計")
        .with(
            "pt-BR",
            "Os gastos do usuário: totais por categoria, ao longo do tempo e por estabelecimento",
        )
        .with("zh-CN", "用户的支出：按类别、按时间和按商家的合计")
}

/// Completes "allow <agent> to read …": the expenses.
pub fn expenses_read() -> Localized {
    Localized::new("your expenses: amounts, dates, merchants")
        .with("ar", "نفقاتك: المبالغ والتواريخ والتجّار")
        .with("de", "deine Ausgaben: Beträge, Daten, Händler")
        .with("es", "tus gastos: importes, fechas, comercios")
        .with("fr", "vos dépenses : montants, dates, commerçants")
        .with("hi", "आपके खर्च: रकम, तारीख़ें, व्यापारी")
        .with("ja", "支出（金額、日付、店舗）")
        .with("pt-BR", "suas despesas: valores, datas, estabelecimentos")
        .with("zh-CN", "支出（金额、日期、商家）")
}
