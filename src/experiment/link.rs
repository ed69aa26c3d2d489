//! The share-link codec: an experiment as deflate-compressed JSON, base64url, in the URL
//! fragment.

use super::*;

/// Why a share link could not be read.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LinkError {
    /// The link has no experiment in it.
    #[error("the link carries no experiment (expected '#x1.' followed by data)")]
    Missing,
    /// The link was made by a newer codec.
    #[error("the link uses codec '{0}', which this build does not know")]
    UnknownCodec(String),
    /// The data is not valid base64url.
    #[error("the link is garbled: {0}")]
    Garbled(String),
    /// The data is cut short or corrupt.
    #[error("the link is truncated or corrupt: {0}")]
    Corrupt(String),
    /// The experiment inside is invalid.
    #[error("the link's experiment is invalid: {0}")]
    Invalid(String),
}

/// Prefix of a link to a bundled scenario by name: `#preset=gavel-paper`.
pub const PRESET_PREFIX: &str = "preset=";

/// Prefix of the current link codec: deflate-compressed JSON, base64url, in the fragment.
pub const LINK_CODEC: &str = "x1";

impl Experiment {
    /// The URL fragment (without `#`) that carries this experiment.
    pub fn to_fragment(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        format!("{LINK_CODEC}.{}", base64url_encode(&packed))
    }

    /// A full share link on `base` (the page's address, without fragment).
    pub fn to_link(&self, base: &str) -> String {
        let base = base.split('#').next().unwrap_or(base);
        format!("{base}#{}", self.to_fragment())
    }

    /// Read an experiment from a share link, its fragment, or the fragment's payload; a
    /// fragment `preset=NAME` is the bundled scenario of that name.
    pub fn from_link(link: &str) -> Result<Self, LinkError> {
        let frag = fragment(link);
        if frag.is_empty() {
            return Err(LinkError::Missing);
        }
        if let Some(name) = frag.strip_prefix(PRESET_PREFIX) {
            return crate::experiment::scenarios::scenario(name)
                .map(|s| s.experiment())
                .ok_or_else(|| LinkError::Invalid(format!("no bundled scenario '{name}'")));
        }
        let (codec, data) = frag.split_once('.').ok_or(LinkError::Missing)?;
        if codec != LINK_CODEC {
            return Err(LinkError::UnknownCodec(codec.chars().take(16).collect()));
        }
        let packed = base64url_decode(data).map_err(LinkError::Garbled)?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, 64 << 20)
            .map_err(|e| LinkError::Corrupt(inflate_failure(e.status).into()))?;
        let text = String::from_utf8(json).map_err(|_| LinkError::Corrupt("not UTF-8".into()))?;
        Experiment::from_json(&text).map_err(|e| LinkError::Invalid(e.to_string()))
    }
}

/// A link's fragment: what follows its last `#` (all of it when there is none), trimmed.
fn fragment(link: &str) -> &str {
    link.trim().rsplit_once('#').map_or(link.trim(), |(_, f)| f)
}

/// The bundled scenario a link names (`#preset=NAME`), if it names one.
pub fn linked_scenario(link: &str) -> Option<&'static crate::experiment::scenarios::Scenario> {
    fragment(link)
        .strip_prefix(PRESET_PREFIX)
        .and_then(crate::experiment::scenarios::scenario)
}

/// Why a link's compressed data could not be unpacked, for people.
fn inflate_failure(status: miniz_oxide::inflate::TINFLStatus) -> &'static str {
    use miniz_oxide::inflate::TINFLStatus;
    match status {
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
            "its data ends too early (was the link cut short when it was copied?)"
        }
        TINFLStatus::HasMoreOutput => "its data unpacks to more than 64 MB",
        _ => "its data is not what the page writes (a character may have changed)",
    }
}

/// The decoder of links: the URL-safe alphabet, any padding or none, and bits past the last
/// byte ignored (as links written by earlier builds may have them).
const LINK_DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Base64url without padding.
pub fn base64url_encode(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(data)
}

/// Decode base64url (padding and whitespace tolerated, anywhere; the standard alphabet's
/// `+` and `/` read as `-` and `_`).
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut clean = Vec::with_capacity(text.len());
    for (i, c) in text.bytes().enumerate() {
        match c {
            b'=' => {}
            c if c.is_ascii_whitespace() => {}
            b'+' => clean.push(b'-'),
            b'/' => clean.push(b'_'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => clean.push(c),
            _ => {
                return Err(format!(
                    "unexpected character '{}' at position {i}",
                    c as char
                ))
            }
        }
    }
    LINK_DECODER.decode(&clean).map_err(|e| match e {
        DecodeError::InvalidLength(_) => "the data ends in the middle of a byte".to_string(),
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_link_is_its_scenario() {
        for sc in crate::experiment::scenarios::SCENARIOS {
            let link = format!("https://example.org/#preset={}", sc.name);
            assert_eq!(
                Experiment::from_link(&link).unwrap(),
                sc.experiment(),
                "{}",
                sc.name
            );
        }
        assert!(matches!(
            Experiment::from_link("#preset=nope"),
            Err(LinkError::Invalid(_))
        ));
    }

    #[test]
    fn base64url_round_trip() {
        for n in 0..40 {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64url_decode(&base64url_encode(&data)).unwrap(), data);
        }
        assert_eq!(base64url_encode(b"Man"), "TWFu");
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert!(base64url_decode("ab$c").is_err());
        // RFC 4648's vectors, without padding.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url_encode(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn base64url_decoding_is_lenient_and_errors_say_where() {
        let foo = b"foo".to_vec();
        // Padding, whitespace and the standard alphabet's + and / are accepted.
        assert_eq!(base64url_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64url_decode("Zg==").unwrap(), b"f");
        assert_eq!(base64url_decode(" Zm\n9v\r\n").unwrap(), foo);
        assert_eq!(base64url_decode("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(base64url_decode("+/8").unwrap(), [0xfb, 0xff]);
        // Bits past the last byte are ignored.
        assert_eq!(base64url_decode("Zh").unwrap(), b"f");
        assert_eq!(
            base64url_decode("ab$c").unwrap_err(),
            "unexpected character '$' at position 2"
        );
        assert_eq!(
            base64url_decode("Zm9vY").unwrap_err(),
            "the data ends in the middle of a byte"
        );
    }

    /// An experiment fixed in JSON, so its link text does not follow the presets.
    const GOLDEN_EXPERIMENT: &str = r#"{"version":1,"cluster":"8:8:8","workload":{"kind":"inline","name":"w.csv","text":"job_type,arrival_s,total_steps\nResNet-18 (batch size 16),0,1000\n"},"profile":{"kind":"preset","name":"gavel-types"},"policies":["las","max_min_fairness_perf"],"seed":42}"#;

    #[test]
    fn link_text_is_unchanged() {
        let e = Experiment::from_json(GOLDEN_EXPERIMENT).unwrap();
        let frag = e.to_fragment();
        assert_eq!(
            frag,
            "x1.TU_NTsMwDH6VySeQsqkFNE15CA5cGYq8zoWwNIlstxtMe3fcIcTkg_3Z3498holYYsngWwddGkWJwcPGW4GDY-FDKrgHf4ZDzNYh5hQz2S3jQIaPq04mg0onNfhZdkG_KjlkjhOmIE6Lzl2pyja_kDyTLtvN4m6H2n0sJH7Tol3fu8a1TdNsM1wcVC59THQTW5mE9D_2HSdKyzlJroKSYhdt9q-QUIw34CkMMYceI2cSCZW4hzcHQmSGTw8OuIx5H0zzuG5Wjfv1DF0ZKtorPSYhI5EostpadOZemX-m4JVHuvwA"
        );
        assert_eq!(Experiment::from_link(&frag).unwrap(), e);
    }

    #[test]
    fn links_round_trip_and_fail_clearly() {
        let e = Experiment {
            seed: 42,
            policies: vec!["las".into(), "max_min_fairness_perf".into()],
            ..Experiment::default()
        };
        let link = e.to_link("http://127.0.0.1:8080/");
        assert!(link.starts_with("http://127.0.0.1:8080/#x1."));
        assert_eq!(Experiment::from_link(&link).unwrap(), e);
        assert_eq!(Experiment::from_link(&e.to_fragment()).unwrap(), e);
        let cut = &link[..link.len() - 10];
        let err = Experiment::from_link(cut).unwrap_err();
        assert!(
            matches!(err, LinkError::Corrupt(_) | LinkError::Garbled(_)),
            "{err:?}"
        );
        // The message is for people: no decoder's status names.
        let text = err.to_string();
        assert!(
            !text.contains("Failed") && !text.contains("Progress") && !text.contains("Input"),
            "{text}"
        );
        assert!(matches!(
            Experiment::from_link("http://x/#x1.@@@"),
            Err(LinkError::Garbled(_))
        ));
        assert!(matches!(
            Experiment::from_link("http://x/"),
            Err(LinkError::Missing)
        ));
        assert!(matches!(
            Experiment::from_link("http://x/#x9.AAAA"),
            Err(LinkError::UnknownCodec(_))
        ));
        let not_json = format!(
            "x1.{}",
            base64url_encode(&miniz_oxide::deflate::compress_to_vec(b"{nope", 6))
        );
        assert!(matches!(
            Experiment::from_link(&not_json),
            Err(LinkError::Invalid(_))
        ));
    }
}
