//! Reading the DOM that headless Chromium serialized ([`crate::browser::dump_dom`]): the start
//! tags with their attributes and the text right after each. Enough to read the marks a page
//! under test puts on its results (`<li class="move" data-uci="e2e4">`, `id`, `data-*`), not a
//! general HTML parser: Chromium's serialization is regular (attribute values in double quotes,
//! `&`, `<`, `>`, `"` escaped), and that is what this reads.

use std::collections::BTreeMap;

/// One element of a serialized DOM: its start tag and the text that follows the tag up to the
/// next tag (the whole text of an element that holds only text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The tag name, lowercase.
    pub name: String,
    /// The attributes, unescaped.
    pub attributes: BTreeMap<String, String>,
    /// The text after the start tag, unescaped.
    pub text: String,
}

impl Element {
    /// The value of attribute `name`.
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.get(name).map(String::as_str)
    }

    /// Whether the element's `class` lists `class`.
    #[must_use]
    pub fn has_class(&self, class: &str) -> bool {
        self.attribute("class")
            .is_some_and(|classes| classes.split_ascii_whitespace().any(|c| c == class))
    }
}

/// The elements of `html` in document order.
#[must_use]
pub fn elements(html: &str) -> Vec<Element> {
    let mut elements = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            rest = comment.split_once("-->").map_or("", |(_, after)| after);
            continue;
        }
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // An end tag or a doctype.
            continue;
        }
        let Some((tag, after)) = split_tag(rest) else {
            break;
        };
        let name_end = tag
            .find(|c: char| c.is_ascii_whitespace() || c == '/')
            .unwrap_or(tag.len());
        let text_end = after.find('<').unwrap_or(after.len());
        elements.push(Element {
            name: tag[..name_end].to_ascii_lowercase(),
            attributes: attributes(&tag[name_end..]),
            text: unescape(&after[..text_end]),
        });
        rest = after;
    }
    elements
}

/// The element whose `id` is `id`.
#[must_use]
pub fn by_id<'a>(elements: &'a [Element], id: &str) -> Option<&'a Element> {
    elements
        .iter()
        .find(|element| element.attribute("id") == Some(id))
}

/// The elements whose `class` lists `class`, in document order.
#[must_use]
pub fn by_class<'a>(elements: &'a [Element], class: &str) -> Vec<&'a Element> {
    elements
        .iter()
        .filter(|element| element.has_class(class))
        .collect()
}

/// Splits `<name attr="...">after` (without the `<`) at the `>` that ends the tag, outside
/// quoted attribute values.
fn split_tag(text: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '>' if !quoted => return Some((&text[..i], &text[i + 1..])),
            _ => {}
        }
    }
    None
}

/// The attributes of a start tag after its name: `a="1" b c="x y"`.
fn attributes(mut text: &str) -> BTreeMap<String, String> {
    let mut attributes = BTreeMap::new();
    loop {
        text = text.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
        if text.is_empty() {
            return attributes;
        }
        let name_end = text
            .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '/')
            .unwrap_or(text.len());
        let name = text[..name_end].to_ascii_lowercase();
        text = &text[name_end..];
        let value = if let Some(quoted) = text.strip_prefix("=\"") {
            let end = quoted.find('"').unwrap_or(quoted.len());
            text = quoted.get(end + 1..).unwrap_or_default();
            unescape(&quoted[..end])
        } else {
            String::new()
        };
        attributes.insert(name, value);
    }
}

/// Undoes the escapes of Chromium's serialization.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_attributes_and_text() {
        let html = "<!DOCTYPE html><ol id=\"moves\" data-count=\"2\"><li class=\"move x\" \
                    data-uci=\"e2e4\">e4 &amp; <b>more</b></li><li class=\"move\" data-uci=\"a&quot;b\" \
                    hidden>a &lt;b&gt;</li></ol><!-- <p id=\"no\"> -->";
        let elements = elements(html);
        assert_eq!(
            by_id(&elements, "moves").unwrap().attribute("data-count"),
            Some("2")
        );
        let moves = by_class(&elements, "move");
        assert_eq!(moves.len(), 2);
        assert_eq!(moves[0].attribute("data-uci"), Some("e2e4"));
        assert_eq!(moves[0].text, "e4 & ");
        assert_eq!(moves[1].attribute("data-uci"), Some("a\"b"));
        assert_eq!(moves[1].attribute("hidden"), Some(""));
        assert_eq!(moves[1].text, "a <b>");
        assert!(by_id(&elements, "no").is_none(), "not in a comment");
    }
}
