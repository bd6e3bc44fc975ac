//! See: #22 (2). TLS to PostgreSQL as libpq spells it in the store URL (`sslmode`,
//! `sslrootcert`), against a throwaway cluster serving a certificate from a CA this test makes
//! (openssl): `verify-full` connects only to a server whose certificate a trusted CA signed for
//! the host named, `verify-ca` only checks the CA, `require` encrypts without checking, and a
//! refused connection changes nothing. The server's own view (`pg_stat_ssl`) shows that
//! `locker serve`'s connections are encrypted.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::{on_postgres, TestEnv};

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").current_dir(dir).args(args).output().expect("openssl runs");
    assert!(out.status.success(), "openssl {args:?}: {out:?}");
}

/// A CA and a server certificate for 127.0.0.1 and db.test signed by it, and another CA.
fn certificates(dir: &Path) {
    let days = ["-days", "2"];
    for ca in ["ca", "other"] {
        let (key, pem, subj) = (format!("{ca}.key"), format!("{ca}.pem"), format!("/CN=test {ca}"));
        let mut args = vec!["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"];
        args.extend(["-nodes", "-keyout", &key, "-out", &pem, "-subj", &subj]);
        args.extend(days);
        openssl(dir, &args);
    }
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=db.test",
        ],
    );
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:db.test\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-extfile",
            "san.ext",
            "-days",
            "2",
        ],
    );
    // PostgreSQL refuses a key others can read; as root the cluster runs as `postgres`.
    let key = dir.join("server.key");
    let _ = Command::new("chmod").args(["600", key.to_str().unwrap()]).status();
    if Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0")) {
        let _ = Command::new("chown").args(["postgres", key.to_str().unwrap()]).status();
        let _ = Command::new("chown")
            .args(["postgres", dir.join("server.crt").to_str().unwrap()])
            .status();
    }
}

/// How many of the connections named `locker` are encrypted, as the server sees them.
fn encrypted_locker_connections(admin: &str) -> i64 {
    let mut c = postgres::Client::connect(admin, postgres::NoTls).unwrap();
    c.query_one(
        "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE a.application_name = 'locker' AND s.ssl",
        &[],
    )
    .unwrap()
    .get(0)
}

#[test]
fn test_postgres_tls_modes_against_a_cluster_with_a_test_ca() {
    if on_postgres() {
        return; // Runs once, on its own cluster, in the SQLite pass.
    }
    let dir = tempfile::tempdir().unwrap();
    let _ = Command::new("chmod").args(["755", dir.path().to_str().unwrap()]).status();
    certificates(dir.path());
    let d = dir.path().display();
    let opts = format!("-c ssl=on -c ssl_cert_file={d}/server.crt -c ssl_key_file={d}/server.key");
    let Some(cluster) = Cluster::start(&opts) else { return };
    let admin = cluster.url.clone();
    let port = cluster.host_port().rsplit(':').next().unwrap().to_owned();
    // One database per repository below (each `init` makes its own repository and log key).
    let mut admin_client = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    for db in ["by_ca", "by_name", "unchecked"] {
        admin_client.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
    }
    let url_in = |db: &str, host: &str, query: &str| {
        format!("postgres://postgres@{host}:{port}/{db}?{query}")
    };
    let url = |host: &str, query: &str| url_in("postgres", host, query);
    let ca = format!("sslrootcert={d}/ca.pem");
    let other = format!("sslrootcert={d}/other.pem");

    // Refused: a CA that did not sign the server's certificate; a host name the certificate
    // does not carry; nonsense. Nothing is created.
    for (u, code, says) in [
        (url("127.0.0.1", &format!("sslmode=verify-full&{other}")), 8, "certificate"),
        (url("localhost", &format!("sslmode=verify-full&{ca}")), 8, "certificate"),
        (url("127.0.0.1", "sslmode=always"), 2, "`always`"),
        (url("127.0.0.1", "sslmode=verify-ca&sslrootcert=/no/such/ca.pem"), 8, "/no/such/ca.pem"),
    ] {
        let env = TestEnv::new();
        let out = env.locker().args(["--json", "init", "--store", &u]).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{u}: {out:?}");
        let e: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert!(e["detail"].as_str().unwrap().contains(says), "{u}: {e}");
        assert!(!env.path().join(".locker").exists(), "{u}: nothing is created");
    }
    let tables: i64 = admin_client
        .query_one("SELECT count(*) FROM pg_tables WHERE tablename = 'journal'", &[])
        .unwrap()
        .get(0);
    assert_eq!(tables, 0, "no schema was made by a refused connection");

    // verify-ca checks the CA only: the host name `localhost` is not in the certificate.
    let env = TestEnv::new();
    let u = url_in("by_ca", "localhost", &format!("sslmode=verify-ca&{ca}"));
    env.locker().args(["init", "--store", &u]).assert().success();
    env.locker().args(["pad", "create"]).assert().success();

    // verify-full: the CA and the host name; the server's connections are encrypted.
    let env = TestEnv::new();
    let u = url_in("by_name", "127.0.0.1", &format!("sslmode=verify-full&{ca}"));
    env.locker().args(["init", "--store", &u]).assert().success();
    let doctor = env.json(&["doctor"]);
    let pg = doctor["findings"].as_array().unwrap().iter().find(|f| f["check"] == "postgres");
    let detail = pg.and_then(|f| f["detail"].as_str()).unwrap_or_default();
    assert!(detail.contains("connected with TLS (TLSv1."), "{doctor}");
    let s = env.serve(&[]);
    s.curl_json("/v1/pads", &["-X", "POST", "-d", "{}"], 201);
    assert!(encrypted_locker_connections(&admin) >= 1);
    drop(s);

    // require: encrypted, the certificate not checked (libpq's meaning).
    let env = TestEnv::new();
    let u = url_in("unchecked", "localhost", "sslmode=require");
    env.locker().args(["init", "--store", &u]).assert().success();
    assert_eq!(env.json(&["verify"])["ok"], true);
}
