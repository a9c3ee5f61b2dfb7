"""What the notebooks check: quizzes, exercises, the loop a student writes, expected errors.

quiz.py        the quizzes, checked against salted digests
exercises.py   the checks of the small exercises, each verdict in the reader's language
loop_check.py  the loop a student writes in notebook 04, beside Agent on every short conversation
mistakes.json  the catalogue of beginner mistakes loop_check names: when (a pattern), and what to say
watch.py       running a loop (the student's or Agent's) on one case, writing down what it does
tally.py       TallyTool, the small tool notebook 04 teaches with; replayed.py: the shop run's tools, replayed
beside.py      the article's loop (article_loop.txt) and Agent._loop, once the student's loop agrees
student.py     a student's value as safe text, and the lines of their own code an error came through
expected.py    expected_error: a deliberate error shown in one line, so Run All goes on
"""
