"""What the notebooks check: quizzes, exercises, the loop a student writes, expected errors.

quiz.py        the quizzes, checked against salted digests
exercises.py   the checks of the small exercises, each verdict in the reader's language
loop_check.py  the loop a student writes in notebook 04, run case by case beside Agent
expected.py    expected_error: a deliberate error shown in one line, so Run All goes on
"""
