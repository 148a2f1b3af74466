"""What the Python client scripts of the end-to-end tests share: running one step of a scenario
and recording its value or its failure (an ApiException's status and parsed body, or any other
error with a short trace), so that a script always prints its whole report."""
import json
import traceback

from kubernetes.client.rest import ApiException


def failure(error):
    if isinstance(error, ApiException):
        body = error.body
        try:
            body = json.loads(body) if body else None
        except (TypeError, ValueError):
            pass
        return {'ok': False, 'status': error.status, 'reason': error.reason, 'body': body}
    return {'ok': False, 'error': '%s: %s' % (type(error).__name__, error), 'trace': traceback.format_exc(limit=4)}


def step(results, name, action):
    """Runs one step, recording {'ok': True, 'value': ...} or the failure."""
    try:
        results[name] = {'ok': True, 'value': action()}
    except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the script
        results[name] = failure(error)
