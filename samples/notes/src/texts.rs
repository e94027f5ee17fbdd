//! The app's own words on the consent screens and in `get_provider_info`, in the languages the
//! screens ship in: the default text, then one translation per language tag. Like the app's
//! `strings.xml`, this is text, not integration code.

use cetp_provider::Localized;

/// What the provider offers.
pub fn description() -> Localized {
    Localized::new("The user's notes: full-text search, tags and notes by date")
        .with("ar", "ملاحظات المستخدم: بحث في النص الكامل، والوسوم، والملاحظات حسب التاريخ")
        .with("de", "Die Notizen des Nutzers: Volltextsuche, Tags und Notizen nach Datum")
        .with("es", "Las notas del usuario: búsqueda de texto completo, etiquetas y notas por fecha")
        .with("fr", "Les notes de l’utilisateur : recherche en texte intégral, étiquettes et notes par date")
        .with("hi", "उपयोगकर्ता के नोट: पूरे टेक्स्ट में खोज, टैग और तारीख़ के अनुसार नोट")
        .with("ja", "ユーザーのメモ：全文検索、タグ、日付別のメモ")
        .with("pt-BR", "As notas do usuário: busca no texto completo, tags e notas por data")
        .with("zh-CN", "用户的笔记：全文搜索、标签和按日期查看笔记")
}

/// Completes "allow <agent> to read …": the notes.
pub fn notes_read() -> Localized {
    Localized::new("your notes: titles, dates and text")
        .with("ar", "ملاحظاتك: العناوين والتواريخ والنصوص")
        .with("de", "deine Notizen: Titel, Daten und Text")
        .with("es", "tus notas: títulos, fechas y texto")
        .with("fr", "vos notes : titres, dates et texte")
        .with("hi", "आपके नोट: शीर्षक, तारीख़ें और टेक्स्ट")
        .with("ja", "メモ（タイトル、日付、本文）")
        .with("pt-BR", "suas notas: títulos, datas e texto")
        .with("zh-CN", "笔记（标题、日期和正文）")
}

/// Completes "allow <agent> to read …": the tags.
pub fn tags_read() -> Localized {
    Localized::new("your tag names and how many notes use each")
        .with("ar", "أسماء وسومك وعدد الملاحظات التي تستخدم كل وسم")
        .with(
            "de",
            "die Namen deiner Tags und wie viele Notizen jeden verwenden",
        )
        .with(
            "es",
            "los nombres de tus etiquetas y cuántas notas usan cada una",
        )
        .with(
            "fr",
            "les noms de vos étiquettes et combien de notes utilisent chacune",
        )
        .with("hi", "आपके टैग के नाम और हर टैग कितने नोट में है")
        .with("ja", "タグ名と、各タグが付いたメモの数")
        .with(
            "pt-BR",
            "os nomes das suas tags e quantas notas usam cada uma",
        )
        .with("zh-CN", "标签名称及每个标签下的笔记数")
}
