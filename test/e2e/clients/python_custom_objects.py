#!/usr/bin/python3
# Owns: what the official Python client's CustomObjectsApi (Debian's python3-kubernetes, run with
# /usr/bin/python3) does against a kstore API server that serves the CronTab CRD of
# test/support/crd-fixtures.ts, for test/e2e/custom-objects-clients.test.ts: create, get, list
# with a label selector, merge patch (the client's only patch type for custom objects), replace
# (and a replace with a stale resourceVersion), get and merge patch of the status subresource, a
# create that breaks the CRD's CEL rule, delete and a get after it, and a
# kubernetes.watch.Watch().stream(list_namespaced_custom_object) while another thread creates,
# patches and deletes a CronTab. Each step is recorded on its own and never stops the others; the
# result is one JSON object on stdout that the test asserts on. Every request has a client-side
# timeout and the watch a server-side one plus an overall deadline, so a server that never
# answers makes a step fail, not the script hang.
import argparse
import functools
import json
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from report_steps import failure, step

GROUP = 'stable.example.com'
VERSION = 'v1'
PLURAL = 'crontabs'
# Seconds: connect and read timeouts of every request; the watch's server-side timeout.
REQUEST_TIMEOUT = (5, 15)
WATCH_TIMEOUT_SECONDS = 15
# How long the writer waits for the watch request to be answered before writing anyway.
WATCH_START_WAIT_SECONDS = 10
# The whole watch step ends by then even if the server keeps the stream open without events.
WATCH_DEADLINE_SECONDS = 40


def expect_error(action):
    """The status and parsed body of the ApiException `action` raises; a success is reported as such."""
    try:
        value = action()
    except ApiException as error:
        try:
            body = json.loads(error.body) if error.body else None
        except (TypeError, ValueError):
            body = error.body
        return {'status': error.status, 'body': body}
    return {'status': 200, 'unexpectedSuccess': value}


def crontab(name, spec, labels=None, resource_version=None):
    metadata = {'name': name}
    if labels is not None:
        metadata['labels'] = labels
    if resource_version is not None:
        metadata['resourceVersion'] = resource_version
    return {'apiVersion': GROUP + '/' + VERSION, 'kind': 'CronTab', 'metadata': metadata, 'spec': spec}


def summary(obj):
    """The parts of a CronTab (a dict: the client has no model for custom objects) the test checks."""
    metadata = obj.get('metadata', {})
    return {
        'pythonType': type(obj).__name__, 'apiVersion': obj.get('apiVersion'), 'kind': obj.get('kind'),
        'name': metadata.get('name'), 'namespace': metadata.get('namespace'), 'uid': metadata.get('uid'),
        'resourceVersion': metadata.get('resourceVersion'), 'generation': metadata.get('generation'),
        'labels': metadata.get('labels'), 'spec': obj.get('spec'), 'status': obj.get('status'),
    }


def crud(results, api, namespace, prefix):
    name = prefix + '-crud'
    labels = {'app': name, 'client': 'python'}
    t = REQUEST_TIMEOUT
    step(results, 'create', lambda: summary(api.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, crontab(name, {'cronSpec': '*/5 * * * *', 'image': 'web:1'}, labels), _request_timeout=t)))
    # Another CronTab that the label selector must leave out.
    step(results, 'createOther', lambda: summary(api.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, crontab(prefix + '-other', {'cronSpec': '0 * * * *'}, {'client': 'other'}), _request_timeout=t)))
    step(results, 'get', lambda: summary(api.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, _request_timeout=t)))

    def listed():
        answer = api.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, label_selector='client=python', _request_timeout=t)
        return {'apiVersion': answer.get('apiVersion'), 'kind': answer.get('kind'),
                'resourceVersion': answer.get('metadata', {}).get('resourceVersion'),
                'items': [summary(item) for item in answer.get('items', [])]}
    step(results, 'list', listed)
    # A dict body: patch_namespaced_custom_object sends it as application/merge-patch+json.
    step(results, 'patch', lambda: summary(api.patch_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, name, {'metadata': {'labels': {'patched': 'yes'}}, 'spec': {'replicas': 3}}, _request_timeout=t)))

    stale = {}

    def replace():
        current = api.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, _request_timeout=t)
        stale['resourceVersion'] = current['metadata']['resourceVersion']
        body = crontab(name, {'cronSpec': '0 0 * * *', 'image': 'web:2', 'color': 'green'}, labels, current['metadata']['resourceVersion'])
        return summary(api.replace_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, body, _request_timeout=t))
    step(results, 'replace', replace)
    step(results, 'replaceStale', lambda: expect_error(lambda: api.replace_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, name,
        crontab(name, {'cronSpec': '0 1 * * *'}, labels, stale.get('resourceVersion', '1')), _request_timeout=t)))
    # The status subresource keeps the spec as it was: only the status changes.
    step(results, 'patchStatus', lambda: summary(api.patch_namespaced_custom_object_status(
        GROUP, VERSION, namespace, PLURAL, name, {'spec': {'replicas': 7}, 'status': {'replicas': 2, 'selector': 'app=' + name}}, _request_timeout=t)))
    step(results, 'getStatus', lambda: summary(api.get_namespaced_custom_object_status(GROUP, VERSION, namespace, PLURAL, name, _request_timeout=t)))
    step(results, 'ruleViolation', lambda: expect_error(lambda: api.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, crontab(prefix + '-too-many', {'cronSpec': '* * * * *', 'image': 'web:3', 'replicas': 20, 'maxReplicas': 10}),
        _request_timeout=t)))
    step(results, 'getRejected', lambda: expect_error(lambda: api.get_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, prefix + '-too-many', _request_timeout=t)))
    step(results, 'delete', lambda: api.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, _request_timeout=t))
    step(results, 'getAfterDelete', lambda: expect_error(lambda: api.get_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, name, _request_timeout=t)))
    step(results, 'deleteOther', lambda: api.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, prefix + '-other', _request_timeout=t))


def watch_crontabs(api, namespace, name):
    """Watches from a list's resourceVersion while a thread creates, merge patches and deletes `name`."""
    t = REQUEST_TIMEOUT
    listed = api.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, _request_timeout=t)
    answered = threading.Event()
    writes = {}

    @functools.wraps(api.list_namespaced_custom_object)
    def list_or_watch(*args, **kwargs):
        try:
            return api.list_namespaced_custom_object(*args, **kwargs)
        finally:
            answered.set()

    def write():
        answered.wait(WATCH_START_WAIT_SECONDS)
        step(writes, 'create', lambda: api.create_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, crontab(name, {'cronSpec': '* * * * *', 'image': 'w:1'}), _request_timeout=t)['metadata']['resourceVersion'])
        step(writes, 'patch', lambda: api.patch_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, name, {'spec': {'image': 'w:2'}}, _request_timeout=t)['metadata']['resourceVersion'])
        step(writes, 'delete', lambda: api.delete_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, name, _request_timeout=t).get('status'))

    writer_thread = threading.Thread(target=write, daemon=True)
    writer_thread.start()
    events = []
    started = time.monotonic()
    deadline_passed = False
    watcher = watch.Watch()
    try:
        for event in watcher.stream(list_or_watch, GROUP, VERSION, namespace, PLURAL,
                                    resource_version=listed['metadata']['resourceVersion'],
                                    timeout_seconds=WATCH_TIMEOUT_SECONDS, _request_timeout=t):
            raw = event['raw_object']
            metadata = raw.get('metadata', {}) if isinstance(raw, dict) else {}
            if time.monotonic() - started > WATCH_DEADLINE_SECONDS:
                deadline_passed = True
                watcher.stop()
            if metadata.get('name') != name:
                continue
            events.append({'type': event['type'], 'name': metadata.get('name'), 'apiVersion': raw.get('apiVersion'),
                           'kind': raw.get('kind'), 'spec': raw.get('spec'), 'resourceVersion': metadata.get('resourceVersion'),
                           'objectType': type(event['object']).__name__})
            if event['type'] == 'DELETED':
                watcher.stop()
    finally:
        writer_thread.join(WATCH_START_WAIT_SECONDS + 3 * REQUEST_TIMEOUT[1])
    return {'events': events, 'writes': writes, 'deadlinePassed': deadline_passed, 'seconds': round(time.monotonic() - started, 3)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--kubeconfig', required=True)
    parser.add_argument('--namespace', required=True)
    parser.add_argument('--prefix', required=True, help='names of the CronTabs this run makes start with it')
    args = parser.parse_args()

    api_client = config.new_client_from_config(config_file=args.kubeconfig)
    api = client.CustomObjectsApi(api_client)
    results = {'clientVersion': __import__('kubernetes').__version__}
    crud(results, api, args.namespace, args.prefix)
    step(results, 'watch', lambda: watch_crontabs(api, args.namespace, args.prefix + '-watched'))
    print(json.dumps(results))


if __name__ == '__main__':
    main()
