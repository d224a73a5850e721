//! The variants' names ([`variant_names`]): the names given, else each variant's text
//! (its command, control characters escaped), made unique.

/// Why the names given for the variants cannot serve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// More names than variants.
    #[error("given {given} times but there are only {variants} variants")]
    TooMany {
        /// Names given.
        given: usize,
        /// Variants.
        variants: usize,
    },
    /// An empty or blank name.
    #[error("{name:?}: a variant name cannot be empty or blank")]
    Blank {
        /// The name.
        name: String,
    },
    /// A name holding a control character (it would break lines and tables).
    #[error("{}: a variant name cannot hold a control character ({}): it would break the report's lines and tables", name.escape_debug(), character.escape_debug())]
    Control {
        /// The name.
        name: String,
        /// Its first control character.
        character: char,
    },
    /// One name given twice.
    #[error("`{name}` is used twice: variant names must be unique")]
    Twice {
        /// The name.
        name: String,
    },
}

/// Names for the variants whose texts (commands) are `texts`: `given[i]` where given,
/// else the text with its control characters escaped (`a\nb`, the same in every table,
/// message and file), made unique by ` #2`, ` #3`, ... Time: O(n²) in the variants.
///
/// # Errors
/// [`NameError`]: more names than variants, a blank name, a control character in one, or
/// a name given twice.
pub fn variant_names(texts: &[String], given: &[String]) -> Result<Vec<String>, NameError> {
    if given.len() > texts.len() {
        return Err(NameError::TooMany {
            given: given.len(),
            variants: texts.len(),
        });
    }
    for name in given {
        if name.trim().is_empty() {
            return Err(NameError::Blank { name: name.clone() });
        }
        if let Some(character) = name.chars().find(|c| c.is_control()) {
            return Err(NameError::Control {
                name: name.clone(),
                character,
            });
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let base = given.get(i).cloned().unwrap_or_else(|| {
            text.chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_default().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        });
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            if given.get(i).is_some() {
                return Err(NameError::Twice { name: base });
            }
            name = format!("{base} #{k}");
            k += 1;
        }
        out.push(name);
    }
    Ok(out)
}
