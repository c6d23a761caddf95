"""What the team reads: each launch's :mod:`~gcbridge_harness.report.timeline`,
the page probe, screenshot and trace (:mod:`~gcbridge_harness.report.observe`),
ssoData leaks (:mod:`~gcbridge_harness.report.leaks`), known failures in the app
team's words (:mod:`~gcbridge_harness.report.diagnosis`), the pytest hooks that
put them into failures (:mod:`~gcbridge_harness.report.reporting`) and the HTML
report and matrix (:mod:`~gcbridge_harness.report.html`, re-exported here).
"""

from gcbridge_harness.report.html import matrix_text, write_report

__all__ = ["matrix_text", "write_report"]
