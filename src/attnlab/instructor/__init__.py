"""The instructor's toolkit: nbgrader's workflow as one command per step, with hardened autograding.

* :mod:`~attnlab.instructor.workflow` — release, collect, autograde, feedback, export (nbgrader API);
* :mod:`~attnlab.instructor.grading` — parallel autograding with limits, one result per student;
* :mod:`~attnlab.instructor.execute` — nbgrader's ``Execute`` with a notebook time limit, an output
  cap, the tamper guard, and survival of a dying kernel;
* :mod:`~attnlab.instructor.guard` — static and run-time checks for patched grading machinery;
* :mod:`~attnlab.instructor.sandbox` — the grading kernel's launcher (rlimits, Landlock).
* :mod:`~attnlab.instructor.submission` — tampered nbgrader metadata, in plain words, and its repair;
* :mod:`~attnlab.instructor.feedback` — feedback without hidden tests or live student HTML.

The command line is ``attnlab-course`` (:func:`attnlab.course.main`).
"""
