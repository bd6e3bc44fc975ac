//! The C2SP signed-note key encodings, read and written by three codecs today (the log key in
//! `note`, agent keys in `sign`, witness keys in `witness`). For now, tests only: what each of
//! them accepts and the messages it refuses with.

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::STANDARD as B64;
    use base64::Engine as _;

    use crate::domain::digest::{hex, Digest};
    use crate::domain::{note, sign, witness};

    const SEED: [u8; 32] = [7; 32];

    fn public() -> [u8; 32] {
        ed25519_dalek::SigningKey::from_bytes(&SEED).verifying_key().to_bytes()
    }

    /// 32 bytes that are not the encoding of an Ed25519 point.
    fn not_a_point() -> [u8; 32] {
        (0u8..=255)
            .map(|b| {
                let mut k = [0u8; 32];
                k[0] = b;
                k
            })
            .find(|k| ed25519_dalek::VerifyingKey::from_bytes(k).is_err())
            .unwrap()
    }

    fn id(name: &str, alg: u8, key: &[u8]) -> String {
        hex(&Digest::of_parts(&[name.as_bytes(), b"\n", &[alg], key]).0[..4])
    }

    fn enc(name: &str, id: &str, alg: u8, key: &[u8]) -> String {
        let mut raw = vec![alg];
        raw.extend_from_slice(key);
        format!("{name}+{id}+{}", B64.encode(raw))
    }

    /// Labelled keys, each with at most one fault.
    /// `key` is what the encoding carries (the public key or the seed); key IDs are of `public`.
    fn cases(alg: u8, other: u8, key: &[u8; 32], private: bool) -> Vec<(&'static str, String)> {
        let public = if private { public() } else { *key };
        let good = |name: &str| enc(name, &id(name, alg, &public), alg, key);
        let long = "a".repeat(257);
        let upper_name = (0..)
            .map(|i| format!("n{i}"))
            .find(|n| id(n, alg, &public).chars().any(|c| c.is_ascii_alphabetic()))
            .unwrap();
        let mut v = vec![
            ("good", good("example.com/n")),
            ("whitespace", format!("  {}\n", good("example.com/n"))),
            ("shape", "a+b".to_owned()),
            ("id not hex", enc("n", "zzzzzzzz", alg, key)),
            ("id short", enc("n", "abc", alg, key)),
            ("id upper", enc(&upper_name, &id(&upper_name, alg, &public).to_uppercase(), alg, key)),
            ("id mismatch", enc("n", "00000000", alg, key)),
            ("not base64", format!("n+{}+!!!!", id("n", alg, &public))),
            ("empty key", format!("n+{}+", id("n", alg, &[]))),
            ("other alg", enc("n", &id("n", other, &public), other, key)),
            ("31 bytes", enc("n", &id("n", alg, &key[..31]), alg, &key[..31])),
            ("space in name", good("n m")),
            ("tab in name", good("n\tm")),
            ("empty name", good("")),
            ("257-byte name", good(&long)),
        ];
        if !private {
            let bad = not_a_point();
            v.push(("not a point", enc("n", &id("n", alg, &bad), alg, &bad)));
        }
        if private {
            v = v
                .into_iter()
                .map(|(l, s)| match l {
                    "whitespace" => (l, format!("  PRIVATE+KEY+{}", s.trim_start())),
                    _ => (l, format!("PRIVATE+KEY+{s}")),
                })
                .collect();
            v.push(("no prefix", good("n")));
        }
        v
    }

    fn show<E: std::fmt::Display>(r: Result<String, E>) -> String {
        match r {
            Ok(s) => format!("ok {s}"),
            Err(e) => format!("err {e}"),
        }
    }

    /// What each caller's parser makes of every case: `ok` or its error message.
    fn table() -> String {
        let pk = public();
        let mut out = String::new();
        let mut run =
            |what: &str, alg: u8, other: u8, key: [u8; 32], parse: &dyn Fn(&str) -> String| {
                let private = what.ends_with("skey");
                for (label, input) in cases(alg, other, &key, private) {
                    let got = parse(&input);
                    // A good key writes back as given (whitespace aside).
                    if let (Some(back), "good" | "whitespace") = (got.strip_prefix("ok "), label) {
                        assert_eq!(back, input.trim(), "{what} {label}");
                    }
                    let got = if got.starts_with("ok ") { "ok".to_owned() } else { got };
                    let got = got.replace(&"a".repeat(257), "<257 x a>");
                    out.push_str(&format!("{what} | {label} | {got}\n"));
                }
            };
        run("log vkey", 1, 4, pk, &|s| show(note::Verifier::parse(s).map(|v| v.to_vkey())));
        run("log skey", 1, 4, SEED, &|s| show(note::Signer::parse(s).map(|v| v.to_skey())));
        run("witness vkey", 4, 1, pk, &|s| {
            show(witness::CosignerKey::parse(s).map(|v| v.to_vkey()))
        });
        run("witness skey", 4, 1, SEED, &|s| {
            show(witness::Cosigner::parse(s).map(|v| v.to_skey()))
        });
        run("agent vkey", 1, 4, pk, &|s| show(sign::PublicKey::parse(s).map(|v| v.vkey())));
        run("agent skey", 1, 4, SEED, &|s| show(sign::PrivateKey::parse(s).map(|v| v.skey())));
        out
    }

    /// Each case, for each of the three uses: what is accepted, and each caller's message.
    #[test]
    fn each_caller_accepts_and_refuses_keys_with_its_messages() {
        let got = table();
        for (g, w) in got.lines().zip(EXPECTED.lines()) {
            assert_eq!(g, w);
        }
        assert_eq!(got.lines().count(), EXPECTED.lines().count());
    }

    const EXPECTED: &str = "\
log vkey | good | ok\n\
log vkey | whitespace | ok\n\
log vkey | shape | err malformed verifier key: expected name+keyid+key\n\
log vkey | id not hex | err malformed verifier key: the key ID is not 8 hex digits\n\
log vkey | id short | err malformed verifier key: the key ID is not 8 hex digits\n\
log vkey | id upper | ok\n\
log vkey | id mismatch | err malformed verifier key: the key ID does not match the name and key\n\
log vkey | not base64 | err malformed verifier key: the key is not base64\n\
log vkey | empty key | err malformed verifier key: the key is empty\n\
log vkey | other alg | err malformed verifier key: not an Ed25519 key (type 0x01)\n\
log vkey | 31 bytes | err malformed verifier key: an Ed25519 key has 32 bytes\n\
log vkey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
log vkey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
log vkey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
log vkey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
log vkey | not a point | err malformed verifier key: not a valid Ed25519 point\n\
log skey | good | ok\n\
log skey | whitespace | ok\n\
log skey | shape | err malformed signing key: expected PRIVATE+KEY+name+keyid+key\n\
log skey | id not hex | err malformed signing key: the key ID is not 8 hex digits\n\
log skey | id short | err malformed signing key: the key ID is not 8 hex digits\n\
log skey | id upper | ok\n\
log skey | id mismatch | err malformed signing key: the key ID does not match the name and key\n\
log skey | not base64 | err malformed signing key: the key is not base64\n\
log skey | empty key | err malformed signing key: the key is empty\n\
log skey | other alg | err malformed signing key: not an Ed25519 key (type 0x01)\n\
log skey | 31 bytes | err malformed signing key: an Ed25519 seed has 32 bytes\n\
log skey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
log skey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
log skey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
log skey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
log skey | no prefix | err malformed signing key: no PRIVATE+KEY+\n\
witness vkey | good | ok\n\
witness vkey | whitespace | ok\n\
witness vkey | shape | err malformed verifier key: expected name+keyid+key\n\
witness vkey | id not hex | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | id short | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | id upper | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | id mismatch | err malformed verifier key: the key ID does not match the name and key\n\
witness vkey | not base64 | err malformed verifier key: the key is not base64\n\
witness vkey | empty key | err malformed verifier key: the key is empty\n\
witness vkey | other alg | err malformed verifier key: not a cosignature key (type 0x04)\n\
witness vkey | 31 bytes | err malformed verifier key: an Ed25519 key has 32 bytes\n\
witness vkey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
witness vkey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
witness vkey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
witness vkey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
witness vkey | not a point | err malformed verifier key: not a valid Ed25519 point\n\
witness skey | good | ok\n\
witness skey | whitespace | ok\n\
witness skey | shape | err malformed signing key: expected PRIVATE+KEY+name+keyid+key\n\
witness skey | id not hex | err malformed signing key: the key ID does not match the name and key\n\
witness skey | id short | err malformed signing key: the key ID does not match the name and key\n\
witness skey | id upper | err malformed signing key: the key ID does not match the name and key\n\
witness skey | id mismatch | err malformed signing key: the key ID does not match the name and key\n\
witness skey | not base64 | err malformed signing key: the key is not base64\n\
witness skey | empty key | err malformed signing key: the key is empty\n\
witness skey | other alg | err malformed signing key: not a cosignature key (type 0x04)\n\
witness skey | 31 bytes | err malformed signing key: an Ed25519 seed has 32 bytes\n\
witness skey | space in name | err malformed key name `n m` (non-empty, no spaces, no `+`)\n\
witness skey | tab in name | err malformed key name `n\tm` (non-empty, no spaces, no `+`)\n\
witness skey | empty name | err malformed key name `` (non-empty, no spaces, no `+`)\n\
witness skey | 257-byte name | err malformed key name `<257 x a>` (non-empty, no spaces, no `+`)\n\
witness skey | no prefix | err malformed signing key: no PRIVATE+KEY+\n\
agent vkey | good | ok\n\
agent vkey | whitespace | ok\n\
agent vkey | shape | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | id not hex | err the key id zzzzzzzz does not match the key\n\
agent vkey | id short | err the key id abc does not match the key\n\
agent vkey | id upper | err the key id 163993EA does not match the key\n\
agent vkey | id mismatch | err the key id 00000000 does not match the key\n\
agent vkey | not base64 | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | empty key | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | other alg | err not an Ed25519 key\n\
agent vkey | 31 bytes | err not a verifier key: expected <agent>+<key id>+<base64 key>\n\
agent vkey | space in name | ok\n\
agent vkey | tab in name | ok\n\
agent vkey | empty name | err the key id 03d2d605 does not match the key\n\
agent vkey | 257-byte name | ok\n\
agent vkey | not a point | ok\n\
agent skey | good | ok\n\
agent skey | whitespace | ok\n\
agent skey | shape | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | id not hex | err the key id zzzzzzzz does not match the key\n\
agent skey | id short | err the key id abc does not match the key\n\
agent skey | id upper | err the key id 163993EA does not match the key\n\
agent skey | id mismatch | err the key id 00000000 does not match the key\n\
agent skey | not base64 | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | empty key | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | other alg | err not an Ed25519 key\n\
agent skey | 31 bytes | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n\
agent skey | space in name | ok\n\
agent skey | tab in name | ok\n\
agent skey | empty name | err the key id 03d2d605 does not match the key\n\
agent skey | 257-byte name | ok\n\
agent skey | no prefix | err not a private key: expected PRIVATE+KEY+<agent>+<key id>+<base64 key>\n";
}
