//! The Slurm recipe (`examples/slurm/`) run for real: a two-node Slurm cluster on this
//! machine (munged, slurmctld, and one slurmd per node, each node one of the machine's
//! CPUs, every file in a temporary directory), the recipe's own `submit.sh` queueing a
//! 4-task job array and its dependent analysis, and the tasks' raw files analysed as one
//! experiment with the nodes as hosts.
//!
//! It fails unless Slurm itself ran every task: each task's log (named by Slurm with the
//! array job and task id) holds the ids Slurm gave it, and its raw file names the node
//! Slurm placed it on. The daemons (and any job left) are stopped when the test ends,
//! passed or not.
//!
//! Skipped (with a message) when Slurm or munge is not installed, or when not run as root
//! (a slurmd launches jobs as their owner), unless `ABBA_REQUIRE_SLURM` is set; `.ci/run`
//! installs Debian's `slurm-wlm` and `munge` and sets it, so CI always runs this.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The programs the test runs.
const PROGRAMS: [&str; 6] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "scontrol",
    "scancel",
];

/// Nodes of the test cluster, one slurmd each (Slurm's multiple-slurmd mode: every node
/// is this machine, on its own port).
const NODES: [&str; 2] = ["node1", "node2"];

/// Tasks of the array (more than nodes: each node runs two, one after the other).
const ARRAY: &str = "0-3";
const TASKS: u32 = 4;

/// The partition, named so `scancel` at the end touches nothing else.
const PARTITION: &str = "abbatest";

/// How long the whole array and its analysis may take.
const JOB_DEADLINE: Duration = Duration::from_secs(240);

fn slurm_required() -> bool {
    std::env::var("ABBA_REQUIRE_SLURM").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join(name).is_file())
            || Path::new("/usr/sbin").join(name).is_file()
    })
}

/// `name` on `PATH`, else in `/usr/sbin` (the daemons' home on Debian, off a user's
/// `PATH`).
fn program(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| Path::new("/usr/sbin").join(name))
}

/// Why the test cannot run here, if it cannot.
fn missing() -> Option<String> {
    let absent: Vec<&str> = PROGRAMS.into_iter().filter(|p| !on_path(p)).collect();
    if !absent.is_empty() {
        return Some(format!(
            "{} not installed (apt-get install -y slurm-wlm munge)",
            absent.join(", ")
        ));
    }
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap());
    if uid != 0 {
        return Some("not root (slurmd starts jobs as their owner)".to_owned());
    }
    None
}

/// Free TCP ports on 127.0.0.1, all held until every one is chosen.
fn free_ports(n: usize) -> Vec<u16> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    held.iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

/// This machine's short hostname (slurmd checks a node's `NodeHostname` against it).
fn short_hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    name.trim().split('.').next().unwrap().to_owned()
}

/// A munge key of this cluster only: 1024 random bytes, readable by root alone.
fn write_munge_key(key: &Path) {
    let mut bytes = vec![0u8; 1024];
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut bytes)
        .unwrap();
    std::fs::write(key, &bytes).unwrap();
    std::fs::set_permissions(key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
}

/// The cluster's `slurm.conf`: this machine as the nodes of `NODES`, one CPU each, on
/// free ports, every file under `dir`, munge through `socket`, no cgroups, no accounting.
fn slurm_conf(dir: &Path, socket: &Path) -> String {
    let (state, spool) = (dir.join("state"), dir.join("spool"));
    let host = short_hostname();
    let ports = free_ports(1 + NODES.len());
    let mut conf = format!(
        "# The abba Slurm test's cluster: this machine as {n} nodes of one CPU each.\n\
         ClusterName=abbatest\n\
         SlurmctldHost={host}(127.0.0.1)\n\
         SlurmctldPort={ctld_port}\n\
         SlurmUser=root\n\
         SlurmdUser=root\n\
         AuthType=auth/munge\n\
         CredType=cred/munge\n\
         AuthInfo=socket={socket}\n\
         StateSaveLocation={state}\n\
         SlurmdSpoolDir={spool}/%n\n\
         SlurmctldPidFile={dir}/slurmctld.pid\n\
         SlurmdPidFile={dir}/slurmd-%n.pid\n\
         ProctrackType=proctrack/linuxproc\n\
         TaskPlugin=task/none\n\
         SelectType=select/cons_tres\n\
         SelectTypeParameters=CR_Core\n\
         JobAcctGatherType=jobacct_gather/none\n\
         AccountingStorageType=accounting_storage/none\n\
         JobCompType=jobcomp/none\n\
         MpiDefault=none\n\
         SwitchType=switch/none\n\
         MailProg=/bin/true\n\
         ReturnToService=2\n\
         SchedulerType=sched/backfill\n\
         SlurmctldTimeout=30\n\
         SlurmdTimeout=30\n\
         InactiveLimit=0\n\
         MinJobAge=600\n\
         KillWait=5\n\
         Waittime=0\n",
        n = NODES.len(),
        ctld_port = ports[0],
        socket = socket.display(),
        state = state.display(),
        spool = spool.display(),
        dir = dir.display(),
    );
    for (node, port) in NODES.iter().zip(&ports[1..]) {
        conf.push_str(&format!(
            "NodeName={node} NodeHostname={host} NodeAddr=127.0.0.1 Port={port} CPUs=1 State=UNKNOWN\n"
        ));
    }
    conf.push_str(&format!(
        "PartitionName={PARTITION} Nodes={} Default=YES MaxTime=INFINITE State=UP\n",
        NODES.join(",")
    ));
    conf
}

/// A running test cluster; dropping it cancels every job in its partition, then stops
/// its daemons (TERM, then KILL after 10 s) and waits for them.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    daemons: Vec<(String, Child)>,
}

impl Cluster {
    /// A Slurm command aimed at this cluster.
    fn command(&self, name: &str) -> Command {
        let mut cmd = Command::new(program(name));
        cmd.env("SLURM_CONF", &self.conf)
            .env_remove("SLURM_JOB_ID")
            .stdin(Stdio::null());
        cmd
    }

    fn spawn(&mut self, name: &str, cmd: &mut Command) {
        let log = self.dir.join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = cmd
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.daemons.push((name.to_owned(), child));
    }

    /// The daemons' own words, for a failure message: each log's last lines.
    fn logs(&self) -> String {
        let mut out = String::new();
        for (name, _) in &self.daemons {
            let text =
                std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(15)..];
            out.push_str(&format!("--- {name}.log\n{}\n", tail.join("\n")));
        }
        out
    }

    /// Waits (at most `limit`) for `done` to return `Some`, failing with the daemons'
    /// logs.
    fn wait_for<T>(&self, what: &str, limit: Duration, mut done: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(v) = done() {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {} s\n{}",
                limit.as_secs(),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// `scontrol show <what> [<id>] --oneliner`: one line per record (every record when
    /// `id` is empty).
    fn show(&self, what: &str, id: &str) -> String {
        let out = self
            .command("scontrol")
            .args(["show", what])
            .args((!id.is_empty()).then_some(id))
            .arg("--oneliner")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Starts munged, slurmctld and a slurmd per node in `dir`.
    fn start(dir: &Path) -> Cluster {
        let munge = dir.join("munge");
        let state = dir.join("state");
        let spool = dir.join("spool");
        for d in [&munge, &state, &spool] {
            std::fs::create_dir_all(d).unwrap();
        }
        for node in NODES {
            std::fs::create_dir_all(spool.join(node)).unwrap();
        }
        let key = munge.join("munge.key");
        write_munge_key(&key);
        let socket = munge.join("munge.socket");
        let conf = slurm_conf(dir, &socket);
        let conf_path = dir.join("slurm.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let mut cluster = Cluster {
            dir: dir.to_owned(),
            conf: conf_path.clone(),
            daemons: Vec::new(),
        };

        cluster.spawn(
            "munged",
            Command::new(program("munged"))
                .arg("--foreground")
                .arg("--force")
                .arg(format!("--socket={}", socket.display()))
                .arg(format!("--key-file={}", key.display()))
                .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
                .arg(format!(
                    "--seed-file={}",
                    munge.join("munged.seed").display()
                ))
                .arg(format!("--log-file={}", munge.join("munged.log").display())),
        );
        cluster.wait_for("munged's socket", Duration::from_secs(20), || {
            socket.exists().then_some(())
        });
        cluster.spawn(
            "slurmctld",
            Command::new(program("slurmctld"))
                .args(["-D", "-i", "-f"])
                .arg(&conf_path),
        );
        for node in NODES {
            cluster.spawn(
                &format!("slurmd-{node}"),
                Command::new(program("slurmd"))
                    .args(["-D", "-N", node, "-f"])
                    .arg(&conf_path),
            );
        }
        cluster.wait_for("every node idle", Duration::from_secs(60), || {
            let nodes = cluster.show("node", "");
            let idle = nodes.lines().filter(|l| l.contains("State=IDLE")).count();
            (idle == NODES.len()).then_some(())
        });
        cluster
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs first: a job's slurmstepd is a daemon of its own, which stopping slurmd
        // would leave behind.
        let _ = self
            .command("scancel")
            .args(["--partition", PARTITION])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let jobs = self.show("job", "");
            if !jobs.contains("JobState=RUNNING") && !jobs.contains("JobState=COMPLETING") {
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        // Then the daemons, slurmds first and munged last.
        for (_, child) in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().ok().flatten().is_none() {
                if Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// `Key=value` from a line of `scontrol --oneliner` output.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

/// A job's state once it is over (`None` while pending or running).
fn finished_state(cluster: &Cluster, id: &str) -> Option<Vec<String>> {
    let text = cluster.show("job", id);
    let states: Vec<String> = text
        .lines()
        .filter_map(|l| field(l, "JobState"))
        .map(str::to_owned)
        .collect();
    let over = |s: &String| {
        !matches!(
            s.as_str(),
            "PENDING" | "RUNNING" | "COMPLETING" | "CONFIGURING"
        )
    };
    (!states.is_empty() && states.iter().all(over)).then_some(states)
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/slurm")
        .join(name)
}

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// The recipe's directory as a user would lay it out: the two scripts, the two builds
/// (`./old --bench`, `./new --bench`: a shell loop, the new one half as long) and abba on
/// PATH. Returns the directory and that PATH.
fn lay_out_work(dir: &Path) -> (PathBuf, std::ffi::OsString) {
    let work = dir.join("work");
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["abba-array.sbatch", "submit.sh"] {
        std::fs::copy(example(name), work.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_abba"), bin.join("abba")).unwrap();
    write_script(
        &work.join("old"),
        "i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done",
    );
    write_script(
        &work.join("new"),
        "i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done",
    );
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();

    (work, path)
}

/// Runs the recipe's `submit.sh` for `ARRAY`; returns the array's and the analysis's
/// job ids.
fn submit(cluster: &Cluster, work: &Path, path: &std::ffi::OsStr) -> (String, String) {
    let submitted = cluster
        .command("bash")
        .arg("submit.sh")
        .current_dir(work)
        .env("PATH", path)
        .env("SBATCH_ARRAY_INX", ARRAY)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&submitted.stdout).into_owned();
    assert!(
        submitted.status.success(),
        "submit.sh failed: {said}{}\n{}",
        String::from_utf8_lossy(&submitted.stderr),
        cluster.logs()
    );
    // "array job N, analysis job M (...)"
    let words: Vec<&str> = said.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let (array_job, analysis_job) = (words[2].to_owned(), words[5].to_owned());
    assert!(
        array_job.parse::<u32>().is_ok() && analysis_job.parse::<u32>().is_ok(),
        "{said}"
    );

    (array_job, analysis_job)
}

/// What array task `i` of `array_job` left in `work`: its log (named by Slurm) must hold
/// the ids Slurm gave it, and its raw file must be named by the node Slurm chose and
/// record that node as its host. Returns (its job id, its node, its raw file).
fn check_task(work: &Path, array_job: &str, i: u32) -> (String, String, PathBuf) {
    let task_log = work.join(format!("logs/abba-{array_job}_{i}.out"));
    let log = std::fs::read_to_string(&task_log)
        .unwrap_or_else(|e| panic!("task {i}: {}: {e}", task_log.display()));
    let line = log
        .lines()
        .find(|l| l.starts_with("abba-fleet: job "))
        .unwrap_or_else(|| panic!("task {i} logged no ids:\n{log}"));
    // "abba-fleet: job J, array job A task I, on NODE, experiment E"
    let w: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    assert_eq!(
        (w[5], w[7], w[8]),
        (array_job, i.to_string().as_str(), "on"),
        "{line}"
    );
    let node = w[9];
    assert!(NODES.contains(&node), "{line}");
    assert_eq!(w[11], format!("fleet-{array_job}"), "{line}");
    let raw = work.join(format!("results/{node}-{i}.jsonl"));
    let text = std::fs::read_to_string(&raw)
        .unwrap_or_else(|e| panic!("task {i}: {}: {e}", raw.display()));
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["host"]["hostname"], node, "{}", raw.display());
    assert_eq!(header["experiment"], format!("fleet-{array_job}"));
    assert_eq!(header["blocks"], 20, "the recipe's own --blocks 20");
    (w[2].to_owned(), node.to_owned(), raw)
}

#[test]
fn slurm_recipe_runs_every_array_task_on_a_local_cluster_and_merges_by_host() {
    if let Some(why) = missing() {
        assert!(
            !slurm_required(),
            "ABBA_REQUIRE_SLURM is set but the Slurm test cannot run: {why}"
        );
        println!(
            "SKIPPED slurm_recipe_runs_every_array_task_on_a_local_cluster_and_merges_by_host: {why} (ABBA_REQUIRE_SLURM=1 makes this an error)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(&dir.path().join("cluster"));

    let (work, path) = lay_out_work(dir.path());
    let (array_job, analysis_job) = submit(&cluster, &work, &path);

    let states = cluster.wait_for("the analysis job", JOB_DEADLINE, || {
        finished_state(&cluster, &analysis_job)
    });
    let array_states = finished_state(&cluster, &array_job).unwrap_or_default();
    let task_log = |i: u32| work.join(format!("logs/abba-{array_job}_{i}.out"));
    let logs: String = (0..TASKS)
        .map(|i| std::fs::read_to_string(task_log(i)).unwrap_or_default())
        .collect();
    assert_eq!(
        states,
        ["COMPLETED"],
        "analysis job {analysis_job}; array tasks {array_states:?}\n{logs}\n{}",
        cluster.logs()
    );
    assert_eq!(array_states.len(), TASKS as usize, "{array_states:?}");
    assert!(
        array_states.iter().all(|s| s == "COMPLETED"),
        "{array_states:?}"
    );

    // Slurm ran every task: its log, named by Slurm, holds the ids Slurm gave the task,
    // and the task's raw file is named by the node Slurm chose and records it as the host.
    let mut job_ids = Vec::new();
    let mut hosts = std::collections::BTreeSet::new();
    let mut files = Vec::new();
    for i in 0..TASKS {
        let (job_id, node, raw) = check_task(&work, &array_job, i);
        job_ids.push(job_id);
        hosts.insert(node);
        files.push(raw);
    }
    job_ids.sort();
    job_ids.dedup();
    assert_eq!(job_ids.len(), TASKS as usize, "each task its own job id");
    assert_eq!(
        hosts.len(),
        NODES.len(),
        "Slurm spread the tasks over both nodes"
    );

    // The recipe's own analysis job read the four files as one experiment of two hosts.
    let analysis =
        std::fs::read_to_string(work.join(format!("logs/abba-analyze-{analysis_job}.out")))
            .unwrap();
    assert!(
        analysis.contains("Many hosts: 2 host(s), 4 session(s)"),
        "{analysis}"
    );
    assert!(work.join("results/report.md").is_file());

    // And the same files here, as JSON: the nodes as the host level.
    let out = assert_cmd::Command::cargo_bin("abba")
        .unwrap()
        .arg("analyze")
        .args(&files)
        .arg("--json")
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["levels"]["hosts"], serde_json::json!(NODES));
    assert_eq!(doc["levels"]["sessions"], TASKS);
    println!("{analysis}");
}
