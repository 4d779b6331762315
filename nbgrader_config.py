"""nbgrader configuration of the attnlab course (run nbgrader commands from the repository root)."""

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

# The course's id in the gradebook. Needed with PostgreSQL, whose foreign keys reject nbgrader's
# empty default; JupyterHub's formgrader uses it too.
c.CourseDirectory.course_id = "attnlab"

# The exercise sources, one folder per chapter: solutions/02-scaled-attention/exercises.ipynb
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

# Every exercise cell must finish within this many seconds when graded (nbgrader's default is 30).
c.ExecutePreprocessor.timeout = 60

# What a student sees in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
