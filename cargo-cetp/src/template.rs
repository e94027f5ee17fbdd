//! The files `cargo cetp` generates are template files under `cargo-cetp/templates/`, compiled
//! in with `include_str!` and filled here: each `{{name}}` is replaced by its value, and every
//! other character is kept as it is (braces included, so the templates read as the files they
//! become).

/// `template` with each `{{name}}` replaced by the value `values` gives `name`.
///
/// # Panics
/// When the template names a placeholder `values` has no value for, or leaves one open: the
/// templates are part of this crate, so that is a bug the unit tests of each caller catch.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .unwrap_or_else(|| panic!("a template leaves `{{{{` open: {after:.40}"));
        let name = &after[..end];
        let value = values
            .iter()
            .find(|(key, _)| *key == name)
            .unwrap_or_else(|| panic!("the template placeholder {{{{{name}}}}} has no value"))
            .1;
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn placeholders_are_replaced_and_other_braces_kept() {
        let filled = fill(
            "name = \"{{name}}\"\nx = { {{dep}} }\n{{name}}{}",
            &[("name", "recipes"), ("dep", "path = \"..\"")],
        );
        assert_eq!(
            filled,
            "name = \"recipes\"\nx = { path = \"..\" }\nrecipes{}"
        );
        // A value is not filled again.
        assert_eq!(fill("{{a}}", &[("a", "{{a}}")]), "{{a}}");
    }

    #[test]
    #[should_panic(expected = "{{nope}} has no value")]
    fn an_unknown_placeholder_is_a_bug() {
        fill("{{nope}}", &[]);
    }
}
