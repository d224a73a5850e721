//! The Kubernetes recipe (`examples/kubernetes/`), checked as far as offline allows: no
//! cluster can run here (it needs images from a registry), so the manifests are validated
//! against the Kubernetes schema of a batch/v1 Job, and their abba commands are compared
//! with the Slurm recipe's, which `slurm.rs` runs for real.
//!
//! The schema is `fixtures/kubernetes/job-schema.json`: Kubernetes 1.37's strict schema
//! (as PyPI's `kubernetes-validate` bundles it) pruned to the fields the manifests use, by
//! `fixtures/kubernetes/generate.py`. The validator here covers the keywords that schema
//! holds: `type`, `enum`, `required`, `properties`, `additionalProperties`, `items`,
//! `oneOf` and the `int32`/`int64` formats.

use std::path::Path;

use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

fn repo_file(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn schema() -> Value {
    serde_json::from_str(&repo_file("fixtures/kubernetes/job-schema.json")).unwrap()
}

/// A YAML document as JSON (what the API server reads).
fn to_json(y: &Yaml) -> Value {
    match y {
        Yaml::Real(s) => s.parse::<f64>().map_or(Value::Null, Value::from),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::String(s) => Value::from(s.as_str()),
        Yaml::Boolean(b) => Value::from(*b),
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Yaml::Hash(h) => Value::Object(
            h.iter()
                .map(|(k, v)| (k.as_str().expect("string keys").to_owned(), to_json(v)))
                .collect::<Map<_, _>>(),
        ),
        Yaml::Null => Value::Null,
        other => panic!("unexpected YAML node {other:?}"),
    }
}

fn manifest(name: &str) -> Value {
    let docs = YamlLoader::load_from_str(&repo_file(&format!("examples/kubernetes/{name}")))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(docs.len(), 1, "{name}: one document");
    to_json(&docs[0])
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        other => panic!("schema type {other} not handled"),
    }
}

/// Every way `value` at `at` breaks `schema`.
fn validate(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let handled = [
        "type",
        "enum",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "oneOf",
        "format",
        "$comment",
    ];
    for key in schema.as_object().unwrap().keys() {
        assert!(handled.contains(&key.as_str()), "keyword {key} not handled");
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().map(|s| s.as_str().unwrap()).collect(),
            _ => panic!("type {t}"),
        };
        if !types.iter().any(|t| type_matches(t, value)) {
            errors.push(format!("{at}: {value} is not of type {types:?}"));
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            errors.push(format!("{at}: {value} is not one of {allowed:?}"));
        }
    }
    match schema.get("format").and_then(Value::as_str) {
        Some("int32") if value.as_i64().is_some_and(|i| i32::try_from(i).is_err()) => {
            errors.push(format!("{at}: {value} is not an int32"));
        }
        _ => {}
    }
    if let Some(branches) = schema.get("oneOf").and_then(Value::as_array) {
        let passing = branches
            .iter()
            .filter(|b| {
                let mut e = Vec::new();
                validate(b, value, at, &mut e);
                e.is_empty()
            })
            .count();
        if passing != 1 {
            errors.push(format!(
                "{at}: {value} matches {passing} of the oneOf branches"
            ));
        }
    }
    if let Some(object) = value.as_object() {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = key.as_str().unwrap();
            if !object.contains_key(key) {
                errors.push(format!("{at}: required field {key} is missing"));
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, v) in object {
            let here = format!("{at}.{key}");
            match (
                properties.and_then(|p| p.get(key)),
                schema.get("additionalProperties"),
            ) {
                (Some(s), _) => validate(s, v, &here, errors),
                (None, Some(Value::Bool(false))) => errors.push(format!(
                    "{here}: unknown field (not in the Kubernetes schema; a new field needs python3 fixtures/kubernetes/generate.py)"
                )),
                (None, Some(s)) if s.is_object() => validate(s, v, &here, errors),
                (None, _) => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, v) in array.iter().enumerate() {
            validate(items, v, &format!("{at}[{i}]"), errors);
        }
    }
}

/// A change that breaks a manifest.
type Edit = Box<dyn Fn(&mut Value)>;

fn errors_of(doc: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    validate(&schema(), doc, "", &mut errors);
    errors
}

#[test]
fn kubernetes_manifests_are_valid_jobs_by_the_kubernetes_schema() {
    for name in ["abba-indexed-job.yaml", "abba-analyze-job.yaml"] {
        let errors = errors_of(&manifest(name));
        assert!(errors.is_empty(), "{name}:\n{}", errors.join("\n"));
    }
}

#[test]
fn kubernetes_schema_check_rejects_a_misspelled_mistyped_or_missing_field() {
    let job = manifest("abba-indexed-job.yaml");
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = job.clone();
        edit(&mut doc);
        errors_of(&doc)
    };
    let pod = "/spec/template/spec";
    let cases: [(&str, Edit, &str); 6] = [
        (
            "a misspelled field",
            Box::new(|d| {
                let spec = d["spec"].as_object_mut().unwrap();
                let v = spec.remove("completionMode").unwrap();
                spec.insert("completionsMode".into(), v);
            }),
            ".spec.completionsMode: unknown field",
        ),
        (
            "a field in the wrong place",
            Box::new(|d| {
                d["spec"]["template"]["spec"]["containers"][0]["completions"] = 6.into();
            }),
            ".spec.template.spec.containers[0].completions: unknown field",
        ),
        (
            "a count as text",
            Box::new(|d| d["spec"]["completions"] = "six".into()),
            ".spec.completions: \"six\" is not of type",
        ),
        (
            "a missing required field",
            Box::new(move |d| {
                d.pointer_mut(&format!("{pod}/containers/0"))
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("name");
            }),
            ".spec.template.spec.containers[0]: required field name is missing",
        ),
        (
            "another kind",
            Box::new(|d| d["kind"] = "CronJob".into()),
            ".kind: \"CronJob\" is not one of",
        ),
        (
            "a label that is not text",
            Box::new(|d| d["spec"]["template"]["metadata"]["labels"]["app"] = 3.into()),
            ".spec.template.metadata.labels.app: 3 is not of type",
        ),
    ];
    for (what, edit, expected) in cases {
        let errors = broken(&*edit);
        assert!(
            errors.iter().any(|e| e.starts_with(expected)),
            "{what}: expected {expected:?}, got {errors:?}"
        );
    }
}

/// Shell lines with their `\` continuations joined (the recipes' checks in `examples.rs`
/// read them too).
pub(crate) fn logical_lines(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in script.lines() {
        match line.trim_end().strip_suffix('\\') {
            Some(head) => cur.push_str(head),
            None => {
                cur.push_str(line);
                out.push(std::mem::take(&mut cur).trim().to_owned());
            }
        }
    }
    out
}

#[test]
fn kubernetes_recipe_runs_the_slurm_recipes_commands_with_the_same_files() {
    // Slurm: the array task's compare, and the analysis submit.sh queues after it.
    let sbatch = repo_file("examples/slurm/abba-array.sbatch");
    let line = logical_lines(&sbatch)
        .into_iter()
        .find(|l| l.starts_with("abba compare "))
        .expect("the task's compare");
    let slurm_compare = shell_words::split(&line).unwrap();
    let submit = repo_file("examples/slurm/submit.sh");
    let wrap = logical_lines(&submit)
        .into_iter()
        .find(|l| l.contains("--wrap"))
        .expect("the dependent analysis");
    let slurm_analyze = wrap
        .split_once("--wrap '")
        .and_then(|(_, rest)| rest.split_once('\''))
        .expect("--wrap '...'")
        .0
        .to_owned();

    // Kubernetes: the pod's command, its variables written the shell's way, the two builds
    // where the image holds them (/bench) instead of the job's directory (./).
    let job = manifest("abba-indexed-job.yaml");
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let argv: Vec<String> = container["command"]
        .as_array()
        .unwrap()
        .iter()
        .chain(container["args"].as_array().unwrap())
        .map(|v| {
            let s = v.as_str().unwrap();
            let mut out = String::new();
            let mut rest = s;
            while let Some(i) = rest.find("$(") {
                let end = rest[i..].find(')').unwrap() + i;
                out.push_str(&rest[..i]);
                out.push('$');
                out.push_str(&rest[i + 2..end]);
                rest = &rest[end + 1..];
            }
            out.push_str(rest);
            out.replace("/bench/", "./")
        })
        .collect();
    assert_eq!(
        argv, slurm_compare,
        "the pod's compare differs from the Slurm task's"
    );
    // The variables it uses are the same facts: the node's name as the host, the task's
    // index, one experiment id for every pod.
    let env = container["env"].as_array().unwrap();
    let var = |name: &str| env.iter().find(|e| e["name"] == name).unwrap().clone();
    assert_eq!(
        var("HOST")["valueFrom"]["fieldRef"]["fieldPath"],
        "spec.nodeName"
    );
    assert_eq!(
        var("INDEX")["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    );
    assert!(var("EXPERIMENT")["value"].is_string());

    let analyze = manifest("abba-analyze-job.yaml");
    let a = &analyze["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(a["command"], serde_json::json!(["sh", "-c"]));
    assert_eq!(a["args"][0], slurm_analyze.as_str());

    // The files go where the analysis reads them: results/ under each job's working
    // directory is the one shared claim.
    for (name, doc, c) in [("fleet", &job, container), ("analyze", &analyze, a)] {
        let workdir = c["workingDir"].as_str().unwrap();
        let mounts = c["volumeMounts"].as_array().unwrap();
        assert_eq!(mounts.len(), 1, "{name}");
        assert_eq!(
            mounts[0]["mountPath"].as_str().unwrap(),
            format!("{workdir}/results"),
            "{name}"
        );
        let volumes = doc["spec"]["template"]["spec"]["volumes"]
            .as_array()
            .unwrap();
        let volume = volumes
            .iter()
            .find(|v| v["name"] == mounts[0]["name"])
            .unwrap();
        assert_eq!(
            volume["persistentVolumeClaim"]["claimName"], "abba-results",
            "{name}"
        );
    }
}
