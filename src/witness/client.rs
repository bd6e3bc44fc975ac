//! The log side of the C2SP tlog-witness protocol: asking a witness to cosign a checkpoint
//! (`POST <url>/add-checkpoint`), proving consistency from whatever size it last cosigned.

use std::time::Duration;

use crate::domain::digest::Digest;
use crate::domain::witness::{AddCheckpoint, WitnessAnswer};
use crate::ops::OpResult;

/// Posts `body` to `<url>/add-checkpoint`: the status and the body.
fn post(url: &str, body: &str) -> Result<(u16, String), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .proxy(None)
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let endpoint = format!("{}/add-checkpoint", url.trim_end_matches('/'));
    let mut resp = agent
        .post(&endpoint)
        .header("content-type", "text/plain")
        .send(body.as_bytes())
        .map_err(|e| format!("cannot reach the witness at {url}: {e}"))?;
    let status = resp.status().as_u16();
    let text = resp
        .body_mut()
        .with_config()
        .limit(64 * 1024)
        .read_to_string()
        .map_err(|e| format!("cannot read the witness's answer: {e}"))?;
    Ok((status, text))
}

/// Asks the witness at `url` to cosign `note` (a checkpoint of `size`), proving consistency
/// from whatever size it last cosigned: first with `old 0`, then, on a 409, from the size it
/// names (`proof` gives the consistency proof between two sizes).
pub fn request_cosignature(
    url: &str,
    note: &str,
    size: u64,
    proof: &mut dyn FnMut(u64) -> OpResult<Vec<Digest>>,
) -> WitnessAnswer {
    let mut answer =
        WitnessAnswer { url: url.to_owned(), cosignatures: vec![], status: 0, error: None };
    let mut old = 0u64;
    for _ in 0..3 {
        let hashes = if old == 0 || old == size {
            Vec::new()
        } else {
            match proof(old) {
                Ok(h) => h,
                Err(e) => {
                    answer.error = Some(e.detail);
                    return answer;
                }
            }
        };
        let req = AddCheckpoint { old, proof: hashes, note: note.to_owned() };
        match post(url, &req.encode()) {
            Err(e) => {
                answer.error = Some(e);
                return answer;
            }
            Ok((status, body)) => {
                answer.status = status;
                match status {
                    200 => {
                        answer.cosignatures =
                            body.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
                        return answer;
                    }
                    409 => match body.trim().parse::<u64>() {
                        Ok(n) if n != old && n <= size => old = n,
                        _ => {
                            answer.error = Some(format!(
                                "the witness has cosigned size {} of this log, beyond this checkpoint's {size}",
                                body.trim()
                            ));
                            return answer;
                        }
                    },
                    _ => {
                        answer.error = Some(format!("HTTP {status}: {}", body.trim()));
                        return answer;
                    }
                }
            }
        }
    }
    answer.error.get_or_insert_with(|| "the witness kept changing its size".into());
    answer
}
