//! `cargo xtask dist`: the release asset of this machine's platform, as the action's
//! install step downloads it (`action.yml`): `abba-TARGET.tar.gz` holding the one file
//! `abba`, built with the `dist` profile (stripped, no debug info, fat LTO), and
//! `abba-TARGET.tar.gz.sha256` (`HEX  NAME`, the format `sha256sum -c` reads).
//!
//! The tarball is written here, not by `tar`: a ustar archive with a fixed mode, owner
//! and time, gzip with no name or time in its header, so the same binary gives the same
//! bytes and the same sha256 on every machine.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use flate2::{Compression, GzBuilder};

use crate::run::target_dir;

/// What `cargo xtask dist` wrote.
#[derive(Debug)]
pub struct Dist {
    /// The stripped binary.
    pub binary: PathBuf,
    /// `abba-TARGET.tar.gz`.
    pub tarball: PathBuf,
    /// `abba-TARGET.tar.gz.sha256`.
    pub checksum: PathBuf,
}

/// Builds `abba` with the `dist` profile and writes the tarball and its sha256 under
/// `target/dist/`.
///
/// # Errors
/// When the build fails, the platform has no release name, or a file cannot be written.
pub fn run(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("building abba: {cargo} build --locked --profile dist -p bench-cli");
    let status = Command::new(&cargo)
        .args(["build", "--locked", "--profile", "dist", "-p", "bench-cli"])
        .current_dir(root)
        .status()
        .with_context(|| format!("starting {cargo}"))?;
    ensure!(status.success(), "`{cargo} build --profile dist` failed");
    let target = target_dir(root);
    let binary = target.join("dist").join("abba");
    let dist = package(&binary, &target.join("dist"), host_target()?)?;
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    println!(
        "{}  {} bytes\n{}  {} bytes\n{}",
        dist.binary.display(),
        size(&dist.binary),
        dist.tarball.display(),
        size(&dist.tarball),
        dist.checksum.display()
    );
    Ok(())
}

/// The release name of this machine's platform, as the action maps `RUNNER_OS` and
/// `RUNNER_ARCH`.
///
/// # Errors
/// On a platform the action has no asset name for.
pub fn host_target() -> Result<&'static str> {
    Ok(match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-gnu",
        ("linux", "aarch64") => "aarch64-unknown-linux-gnu",
        ("macos", "x86_64") => "x86_64-apple-darwin",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        (os, arch) => bail!("no release asset name for {os}/{arch}"),
    })
}

/// Writes `DIR/abba-TARGET.tar.gz` (the one file `abba`, from `binary`) and its
/// `.sha256`. Time: O(size of the binary).
///
/// # Errors
/// When the binary cannot be read, `sha256sum` (or `shasum`) fails, or a file cannot be
/// written.
pub fn package(binary: &Path, dir: &Path, target: &str) -> Result<Dist> {
    let bytes = std::fs::read(binary).with_context(|| format!("reading {}", binary.display()))?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = format!("abba-{target}.tar.gz");
    let tarball = dir.join(&name);
    let file = std::fs::File::create(&tarball)
        .with_context(|| format!("creating {}", tarball.display()))?;
    let mut gz = GzBuilder::new().mtime(0).write(file, Compression::best());
    gz.write_all(&ustar("abba", 0o755, &bytes)?)?;
    gz.finish()?.sync_all()?;
    let hex = sha256(&tarball)?;
    let checksum = dir.join(format!("{name}.sha256"));
    std::fs::write(&checksum, format!("{hex}  {name}\n"))
        .with_context(|| format!("writing {}", checksum.display()))?;
    Ok(Dist {
        binary: binary.to_path_buf(),
        tarball,
        checksum,
    })
}

/// A ustar archive of one regular file: its 512-byte header (owner 0, time 0), the data
/// padded to 512 bytes, and the two zero blocks that end an archive (POSIX.1-1988).
fn ustar(name: &str, mode: u32, data: &[u8]) -> Result<Vec<u8>> {
    ensure!(name.len() < 100, "a ustar name holds at most 99 bytes");
    let mut header = [0u8; 512];
    let mut put =
        |at: usize, text: &str| header[at..at + text.len()].copy_from_slice(text.as_bytes());
    put(0, name);
    put(100, &format!("{mode:07o}"));
    put(108, "0000000");
    put(116, "0000000");
    put(124, &format!("{:011o}", data.len()));
    put(136, "00000000000");
    put(156, "0");
    put(257, "ustar");
    put(263, "00");
    // The checksum is the byte sum with its own field read as spaces.
    header[148..156].copy_from_slice(b"        ");
    let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
    header[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let mut out = header.to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512 + 1024, 0);
    Ok(out)
}

/// The sha256 of a file in hex, by `sha256sum` (GNU coreutils) or `shasum -a 256`
/// (macOS), the tools the action checks it with.
fn sha256(path: &Path) -> Result<String> {
    let tries: [(&str, &[&str]); 2] = [("sha256sum", &[]), ("shasum", &["-a", "256"])];
    for (tool, args) in tries {
        let Ok(out) = Command::new(tool).args(args).arg(path).output() else {
            continue;
        };
        if out.status.success() {
            let text = String::from_utf8_lossy(&out.stdout);
            let hex = text.split_whitespace().next().unwrap_or("").to_owned();
            ensure!(hex.len() == 64, "{tool} printed {text:?}");
            return Ok(hex);
        }
    }
    bail!("neither sha256sum nor shasum could hash {}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The archive reads back with the system's `tar` to the same bytes and mode, and
    /// packing the same binary twice gives the same sha256 (a reproducible asset).
    #[test]
    fn dist_tarball_unpacks_with_tar_and_is_reproducible() {
        let dir = tempdir();
        let binary = dir.join("abba-in");
        let data: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&binary, &data).unwrap();
        let first = package(&binary, &dir.join("a"), "x86_64-unknown-linux-gnu").unwrap();
        let second = package(&binary, &dir.join("b"), "x86_64-unknown-linux-gnu").unwrap();
        let line = std::fs::read_to_string(&first.checksum).unwrap();
        assert_eq!(line, std::fs::read_to_string(&second.checksum).unwrap());
        assert!(
            line.ends_with("  abba-x86_64-unknown-linux-gnu.tar.gz\n"),
            "{line}"
        );
        let check = Command::new("sha256sum")
            .arg("-c")
            .arg(first.checksum.file_name().unwrap())
            .current_dir(dir.join("a"))
            .output()
            .unwrap();
        assert!(check.status.success(), "{check:?}");
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let status = Command::new("tar")
            .arg("-xzf")
            .arg(&first.tarball)
            .arg("-C")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(std::fs::read(out.join("abba")).unwrap(), data);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join("abba"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "executable: {mode:o}");
        let listing = Command::new("tar")
            .arg("-tzf")
            .arg(&first.tarball)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&listing.stdout), "abba\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempdir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-dist-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
