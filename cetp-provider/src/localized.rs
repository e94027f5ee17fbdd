//! [`Localized`]: an app's own text (a scope's description, the provider's description) with
//! its translations, and the choice of one for the user's language.
//!
//! The consent dialog asks *Allow ClawSeed to read your notes …* in the user's language: the
//! sentence is the template's, the words *your notes* are the app's. A text is written in the
//! app's default language and translated per language tag (BCP 47, as Android's
//! `Locale.toLanguageTag()` spells it: `fr`, `pt-BR`, `zh-CN`). [`Localized::get`] picks the
//! translation for a requested tag: the exact tag, then the tag without its script
//! (`zh-Hans-CN` → `zh-CN`), then the language alone (`pt-BR` → `pt`), then the default text.
//! Tags compare without regard to case, and `_` counts as `-`.

/// The languages the template's screens ship in besides the default (English): one per
/// `res/values-*` directory of strings, as a language tag. `cargo cetp check` warns when an
/// app's text has no translation for one of them.
pub const TEMPLATE_LANGUAGES: &[&str] = &["ar", "de", "es", "fr", "hi", "ja", "pt-BR", "zh-CN"];

/// A text in the app's default language with its translations.
///
/// Every place that takes one also takes a plain `&str` or `String` (the text in one
/// language only):
///
/// ```
/// use cetp_provider::Localized;
///
/// let notes = Localized::new("your notes")
///     .with("fr", "vos notes")
///     .with("pt-BR", "suas notas");
/// assert_eq!(notes.get(Some("fr-CA")), "vos notes");
/// assert_eq!(notes.get(Some("pt-BR")), "suas notas");
/// assert_eq!(notes.get(Some("de")), "your notes");
/// assert_eq!(notes.get(None), "your notes");
/// let plain: Localized = "your notes".into();
/// assert_eq!(plain.get(Some("fr")), "your notes");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Localized {
    default: String,
    /// `(tag, text)`, in the order given; a later text for the same tag replaces the earlier.
    translations: Vec<(String, String)>,
}

impl Localized {
    /// The text in the app's default language.
    pub fn new(default: impl Into<String>) -> Self {
        Localized {
            default: default.into(),
            translations: Vec::new(),
        }
    }

    /// Adds the text for language `tag` (`"fr"`, `"pt-BR"`, `"zh-CN"`).
    #[must_use]
    pub fn with(mut self, tag: impl Into<String>, text: impl Into<String>) -> Self {
        let tag = tag.into();
        let text = text.into();
        match self
            .translations
            .iter_mut()
            .find(|(t, _)| same_tag(t, &tag))
        {
            Some(slot) => slot.1 = text,
            None => self.translations.push((tag, text)),
        }
        self
    }

    /// The text in the app's default language.
    pub fn default_text(&self) -> &str {
        &self.default
    }

    /// The language tags the text is translated to, in the order given.
    pub fn languages(&self) -> impl Iterator<Item = &str> {
        self.translations.iter().map(|(tag, _)| tag.as_str())
    }

    /// The text for the language `locale` (a BCP 47 tag), or the default text for `None` and
    /// for a language without a translation; see the [module](self) for the order.
    pub fn get(&self, locale: Option<&str>) -> &str {
        locale
            .and_then(|tag| self.translation(tag))
            .unwrap_or(&self.default)
    }

    /// The translation a user with `locale` sees, if there is one (not the default text). A
    /// tag longer than 128 bytes is no language tag an app's screen sends: it has none.
    pub fn translation(&self, locale: &str) -> Option<&str> {
        if locale.len() > MAX_LOCALE_LEN {
            return None;
        }
        let find = |wanted: &str| {
            self.translations
                .iter()
                .find(|(tag, _)| same_tag(tag, wanted))
                .map(|(_, text)| text.as_str())
        };
        let mut parts = locale.split(['-', '_']).filter(|p| !p.is_empty());
        let language = parts.next()?;
        let rest: Vec<&str> = parts.collect();
        let without_script = match rest.split_first() {
            Some((script, tail)) if script.len() == 4 && !tail.is_empty() => {
                Some(format!("{language}-{}", tail[0]))
            }
            _ => None,
        };
        find(locale)
            .or_else(|| without_script.as_deref().and_then(find))
            .or_else(|| find(language))
    }
}

/// The longest language tag read, in bytes. A BCP 47 tag is short (`pt-BR`; `zh-Hant-TW`;
/// with Android's regional preferences `en-US-u-fw-mon-mu-celsius`); a longer one is refused
/// before it is split into subtags.
pub(crate) const MAX_LOCALE_LEN: usize = 128;

impl From<&str> for Localized {
    fn from(text: &str) -> Self {
        Localized::new(text)
    }
}

impl From<String> for Localized {
    fn from(text: String) -> Self {
        Localized::new(text)
    }
}

fn same_tag(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(x, y)| {
            x.eq_ignore_ascii_case(&y) || matches!((x, y), (b'-', b'_') | (b'_', b'-'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Localized {
        Localized::new("your notes")
            .with("pt", "as suas notas")
            .with("pt-BR", "suas notas")
            .with("zh-CN", "你的笔记")
            .with("fr", "vos notes")
    }

    #[test]
    fn the_exact_tag_then_without_script_then_the_language_then_the_default() {
        let text = sample();
        assert_eq!(text.get(Some("pt-BR")), "suas notas");
        assert_eq!(text.get(Some("pt-PT")), "as suas notas");
        assert_eq!(text.get(Some("pt")), "as suas notas");
        assert_eq!(text.get(Some("zh-Hans-CN")), "你的笔记");
        assert_eq!(text.get(Some("zh-TW")), "your notes");
        assert_eq!(text.get(Some("fr-CA")), "vos notes");
        assert_eq!(text.get(Some("ja")), "your notes");
        assert_eq!(text.get(Some("")), "your notes");
        assert_eq!(text.get(None), "your notes");
    }

    #[test]
    fn tags_compare_without_case_and_with_either_separator() {
        let text = sample();
        assert_eq!(text.get(Some("PT_br")), "suas notas");
        assert_eq!(text.get(Some("zh_cn")), "你的笔记");
        assert_eq!(text.translation("FR"), Some("vos notes"));
        assert_eq!(text.translation("de"), None);
    }

    #[test]
    fn a_second_text_for_a_tag_replaces_the_first() {
        let text = Localized::new("a").with("fr", "b").with("FR", "c");
        assert_eq!(text.get(Some("fr")), "c");
        assert_eq!(text.languages().count(), 1);
    }

    #[test]
    fn a_plain_text_converts() {
        let from_str: Localized = "x".into();
        let from_string: Localized = String::from("x").into();
        assert_eq!(from_str, from_string);
        assert_eq!(from_str.default_text(), "x");
        assert_eq!(from_str.languages().count(), 0);
    }
}
