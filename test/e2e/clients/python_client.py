#!/usr/bin/python3
# Owns: what the official Python client (Debian's python3-kubernetes, run with /usr/bin/python3)
# does against a kstore API server, for test/e2e/python-client.test.ts: list namespaces, read
# /version/ (VersionApi.get_code), create/get/replace/patch/delete a ConfigMap, watch ConfigMaps
# with kubernetes.watch.Watch().stream (which sends watch=True) while another thread writes, and
# replace a ConfigMap that does not exist. Each step is recorded on its own and never stops the
# others; the result is one JSON object on stdout that the test asserts on. Writes go through
# --write-context, reads and the watch through --read-context (two API replicas of an HA
# cluster, or both the one server). Every read and the watch have a client-side timeout, so a
# server that never answers makes a step fail, not the script hang.
import argparse
import functools
import json
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from report_steps import failure, step

# Seconds: connect and read timeouts of every request; the watch's server-side timeout.
REQUEST_TIMEOUT = (5, 15)
WATCH_TIMEOUT_SECONDS = 15
# How long the writer waits for the watch request to be answered before writing anyway.
WATCH_START_WAIT_SECONDS = 10


def configmap_body(name, data, resource_version=None):
    metadata = {'name': name}
    if resource_version is not None:
        metadata['resourceVersion'] = resource_version
    return {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': metadata, 'data': data}


def summary(api_client, obj):
    raw = api_client.sanitize_for_serialization(obj)
    metadata = raw.get('metadata', {})
    return {
        'name': metadata.get('name'), 'namespace': metadata.get('namespace'), 'uid': metadata.get('uid'),
        'resourceVersion': metadata.get('resourceVersion'), 'data': raw.get('data'),
    }


def crud(results, writer, reader, write_client, read_client, namespace, name):
    step(results, 'create', lambda: summary(write_client, writer.create_namespaced_config_map(
        namespace, configmap_body(name, {'a': '1'}), _request_timeout=REQUEST_TIMEOUT)))
    step(results, 'get', lambda: summary(read_client, reader.read_namespaced_config_map(
        name, namespace, _request_timeout=REQUEST_TIMEOUT)))

    def replace():
        current = reader.read_namespaced_config_map(name, namespace, _request_timeout=REQUEST_TIMEOUT)
        body = configmap_body(name, {'a': '2'}, current.metadata.resource_version)
        return summary(write_client, writer.replace_namespaced_config_map(name, namespace, body, _request_timeout=REQUEST_TIMEOUT))
    step(results, 'replace', replace)
    # A dict body: the client sends it as a strategic merge patch.
    step(results, 'patch', lambda: summary(write_client, writer.patch_namespaced_config_map(
        name, namespace, {'data': {'b': '3'}}, _request_timeout=REQUEST_TIMEOUT)))
    step(results, 'delete', lambda: write_client.sanitize_for_serialization(writer.delete_namespaced_config_map(
        name, namespace, _request_timeout=REQUEST_TIMEOUT)))

    def get_deleted():
        try:
            reader.read_namespaced_config_map(name, namespace, _request_timeout=REQUEST_TIMEOUT)
        except ApiException as error:
            return {'status': error.status}
        return {'status': 200}
    step(results, 'getAfterDelete', get_deleted)


def watch_configmaps(writer, reader, namespace, name):
    """Watches from a list's resourceVersion while a thread creates, updates and deletes `name`."""
    listed = reader.list_namespaced_config_map(namespace, _request_timeout=REQUEST_TIMEOUT)
    answered = threading.Event()
    writes = {}

    @functools.wraps(reader.list_namespaced_config_map)
    def list_or_watch(*args, **kwargs):
        try:
            return reader.list_namespaced_config_map(*args, **kwargs)
        finally:
            answered.set()

    def write():
        answered.wait(WATCH_START_WAIT_SECONDS)
        step(writes, 'create', lambda: writer.create_namespaced_config_map(
            namespace, configmap_body(name, {'v': '1'}), _request_timeout=REQUEST_TIMEOUT).metadata.resource_version)
        step(writes, 'patch', lambda: writer.patch_namespaced_config_map(
            name, namespace, {'data': {'v': '2'}}, _request_timeout=REQUEST_TIMEOUT).metadata.resource_version)
        step(writes, 'delete', lambda: writer.delete_namespaced_config_map(
            name, namespace, _request_timeout=REQUEST_TIMEOUT).status)

    writer_thread = threading.Thread(target=write, daemon=True)
    writer_thread.start()
    events = []
    started = time.monotonic()
    watcher = watch.Watch()
    try:
        for event in watcher.stream(list_or_watch, namespace, resource_version=listed.metadata.resource_version,
                                    timeout_seconds=WATCH_TIMEOUT_SECONDS, _request_timeout=REQUEST_TIMEOUT):
            raw = event['raw_object']
            metadata = raw.get('metadata', {}) if isinstance(raw, dict) else {}
            if metadata.get('name') != name:
                continue
            events.append({'type': event['type'], 'name': metadata.get('name'), 'data': raw.get('data'),
                           'objectClass': type(event['object']).__name__})
            if event['type'] == 'DELETED':
                watcher.stop()
    finally:
        writer_thread.join(WATCH_START_WAIT_SECONDS + 3 * REQUEST_TIMEOUT[1])
    return {'events': events, 'writes': writes, 'seconds': round(time.monotonic() - started, 3)}


def replace_missing(writer, write_client, namespace, name):
    """kube answers NotFound; a server that creates the object instead is reported (and cleaned up)."""
    try:
        created = writer.replace_namespaced_config_map(name, namespace, configmap_body(name, {'a': '1'}),
                                                       _request_timeout=REQUEST_TIMEOUT)
    except ApiException as error:
        body = json.loads(error.body) if error.body else None
        return {'status': error.status, 'reason': body.get('reason') if isinstance(body, dict) else None,
                'message': body.get('message') if isinstance(body, dict) else None}
    try:
        writer.delete_namespaced_config_map(name, namespace, _request_timeout=REQUEST_TIMEOUT)
    except ApiException:
        pass
    return {'status': 200, 'created': summary(write_client, created)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--kubeconfig', required=True)
    parser.add_argument('--namespace', required=True)
    parser.add_argument('--prefix', required=True, help='names of the ConfigMaps this run makes start with it')
    parser.add_argument('--write-context', default=None)
    parser.add_argument('--read-context', default=None)
    args = parser.parse_args()

    write_client = config.new_client_from_config(config_file=args.kubeconfig, context=args.write_context)
    read_client = config.new_client_from_config(config_file=args.kubeconfig, context=args.read_context)
    writer = client.CoreV1Api(write_client)
    reader = client.CoreV1Api(read_client)
    results = {'clientVersion': __import__('kubernetes').__version__}

    def version():
        info = client.VersionApi(read_client).get_code(_request_timeout=REQUEST_TIMEOUT)
        return {'major': info.major, 'minor': info.minor, 'gitVersion': info.git_version, 'platform': info.platform}
    step(results, 'version', version)
    step(results, 'listNamespaces', lambda: [item.metadata.name for item in reader.list_namespace(_request_timeout=REQUEST_TIMEOUT).items])
    crud(results, writer, reader, write_client, read_client, args.namespace, args.prefix + '-crud')
    step(results, 'watch', lambda: watch_configmaps(writer, reader, args.namespace, args.prefix + '-watched'))
    step(results, 'replaceMissing', lambda: replace_missing(writer, write_client, args.namespace, args.prefix + '-missing'))
    print(json.dumps(results))


if __name__ == '__main__':
    main()
