//! The app's own words on the consent screens and in `get_provider_info`, in the languages the
//! screens ship in: the default text, then one translation per language tag. Like the app's
//! `strings.xml`, this is text, not integration code.

use cetp_provider::Localized;

/// What the provider offers.
pub fn description() -> Localized {
    Localized::new("The user's journal, written in the Journal app")
        .with("ar", "يوميات المستخدم، المكتوبة في تطبيق اليوميات")
        .with(
            "de",
            "Das Tagebuch des Nutzers, geschrieben in der Tagebuch-App",
        )
        .with("es", "El diario del usuario, escrito en la app Diario")
        .with(
            "fr",
            "Le journal de l’utilisateur, écrit dans l’app Journal",
        )
        .with("hi", "उपयोगकर्ता की डायरी, जर्नल ऐप में लिखी गई")
        .with("ja", "ジャーナルアプリで書かれたユーザーの日記")
        .with("pt-BR", "O diário do usuário, escrito no app Diário")
        .with("zh-CN", "用户在日记应用中写的日记")
}

/// Completes "allow <agent> to read …": the entries without their text.
pub fn journal_read() -> Localized {
    Localized::new("titles, moods, tags and dates of your journal entries")
        .with("ar", "عناوين مدخلات يومياتك ومزاجها ووسومها وتواريخها")
        .with(
            "de",
            "Titel, Stimmungen, Tags und Daten deiner Tagebucheinträge",
        )
        .with(
            "es",
            "títulos, estados de ánimo, etiquetas y fechas de tus entradas del diario",
        )
        .with(
            "fr",
            "titres, humeurs, étiquettes et dates de vos entrées de journal",
        )
        .with("hi", "आपकी डायरी प्रविष्टियों के शीर्षक, मनोदशा, टैग और तारीख़ें")
        .with("ja", "日記のタイトル、気分、タグ、日付")
        .with(
            "pt-BR",
            "títulos, humores, tags e datas das entradas do seu diário",
        )
        .with("zh-CN", "日记条目的标题、心情、标签和日期")
}

/// Completes "allow <agent> to read …": the entries' text.
pub fn journal_text() -> Localized {
    Localized::new("the text of your journal entries")
        .with("ar", "نص مدخلات يومياتك")
        .with("de", "den Text deiner Tagebucheinträge")
        .with("es", "el texto de tus entradas del diario")
        .with("fr", "le texte de vos entrées de journal")
        .with("hi", "आपकी डायरी प्रविष्टियों का टेक्स्ट")
        .with("ja", "日記の本文")
        .with("pt-BR", "o texto das entradas do seu diário")
        .with("zh-CN", "日记条目的正文")
}
