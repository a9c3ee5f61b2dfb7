"""One run: the loop, what it records, and a run on a fresh working copy.

agent.py    Agent: the history, _validate, _execute and the limits (the loop is Agent._loop)
record.py   RunRecord: every request, response, tool execution and the stop reason
runner.py   run_in_copy and independent_test_run (the verdict no run can forge)
summary.py  FAIL/OK read from real test output; the key lines of a result
"""
