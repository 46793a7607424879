#!/usr/bin/python3
"""Validates Kubernetes manifests offline against the API's own types.

Every object of every YAML file given (a file may hold several, separated by
---) is checked against the typed models of the Kubernetes Python client
(Debian's python3-kubernetes), which are generated from the Kubernetes
OpenAPI schema: its apiVersion and kind must name a known type, every field
must exist in that type (a misspelt field is an error, not ignored), every
value must have the field's type (an object, a list, a string, a whole
number, a boolean), recursively, and every required field must be there
(the models refuse a missing one). A kustomization.yaml is checked for the
files it lists instead.

Usage: validate_k8s.py FILE...   Exit 0 when all are valid, 1 otherwise,
each problem printed as FILE: KIND NAME: PATH: what is wrong.
"""
import os
import re
import sys

import kubernetes.client as k8s
import yaml

# (apiVersion, kind) -> the client's model name, for the kinds gunbai uses.
KINDS = {
    ("apps/v1", "Deployment"): "V1Deployment",
    ("apps/v1", "StatefulSet"): "V1StatefulSet",
    ("batch/v1", "Job"): "V1Job",
    ("policy/v1", "PodDisruptionBudget"): "V1PodDisruptionBudget",
    ("v1", "Service"): "V1Service",
    ("v1", "Secret"): "V1Secret",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("v1", "Namespace"): "V1Namespace",
}

CONFIG = k8s.Configuration()
CONFIG.client_side_validation = True


def check(value, type_name, path, problems):
    """Appends to `problems` what is wrong with `value` as a `type_name`."""
    if value is None:
        return
    m = re.fullmatch(r"list\[(.*)\]", type_name)
    if m:
        if not isinstance(value, list):
            problems.append(f"{path}: a list is wanted, not {value!r}")
            return
        for i, item in enumerate(value):
            check(item, m.group(1), f"{path}[{i}]", problems)
        return
    m = re.fullmatch(r"dict\(str, (.*)\)", type_name)
    if m:
        if not isinstance(value, dict):
            problems.append(f"{path}: a map is wanted, not {value!r}")
            return
        for key, item in value.items():
            check(item, m.group(1), f"{path}.{key}", problems)
        return
    if type_name == "str":
        if not isinstance(value, str):
            problems.append(f"{path}: a string is wanted, not {value!r}")
        return
    if type_name == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{path}: a whole number is wanted, not {value!r}")
        return
    if type_name == "bool":
        if not isinstance(value, bool):
            problems.append(f"{path}: true or false is wanted, not {value!r}")
        return
    if type_name == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{path}: a number is wanted, not {value!r}")
        return
    if type_name in ("object", "datetime", "date"):
        return  # IntOrString, Quantity and free-form values.
    model = getattr(k8s, type_name, None)
    if model is None:
        problems.append(f"{path}: the schema names an unknown type {type_name}")
        return
    if not isinstance(value, dict):
        problems.append(f"{path}: a {type_name} object is wanted, not {value!r}")
        return
    by_json = {json: attr for attr, json in model.attribute_map.items()}
    kwargs = {}
    for key, item in value.items():
        attr = by_json.get(key)
        if attr is None:
            known = ", ".join(sorted(by_json))
            problems.append(f"{path}.{key}: no such field in {type_name} "
                            f"(it has: {known})")
            continue
        check(item, model.openapi_types[attr], f"{path}.{key}", problems)
        kwargs[attr] = item
    try:
        model(local_vars_configuration=CONFIG, **kwargs)
    except ValueError as e:
        problems.append(f"{path}: {e}")


def check_object(doc, where):
    problems = []
    if not isinstance(doc, dict):
        return [f"{where}: not a Kubernetes object"]
    key = (doc.get("apiVersion"), doc.get("kind"))
    name = (doc.get("metadata") or {}).get("name", "?")
    model = KINDS.get(key)
    if model is None:
        return [f"{where}: apiVersion {key[0]!r} kind {key[1]!r} is not a "
                f"kind this validator knows ({', '.join(k for _, k in KINDS)})"]
    check(doc, model, f"{key[1]} {name}", problems)
    return [f"{where}: {p}" for p in problems]


def check_kustomization(doc, path):
    base = os.path.dirname(path)
    problems = []
    for resource in doc.get("resources", []):
        if not os.path.isfile(os.path.join(base, resource)):
            problems.append(f"{path}: resource {resource} does not exist")
    return problems


def main(paths):
    problems = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            problems.append(f"{path}: {e}")
            continue
        if os.path.basename(path) == "kustomization.yaml":
            for doc in docs:
                problems += check_kustomization(doc, path)
            continue
        for i, doc in enumerate(docs):
            problems += check_object(doc, f"{path} (object {i + 1})")
    for p in problems:
        print(p)
    if not problems:
        print(f"validate_k8s: {len(paths)} files valid")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
