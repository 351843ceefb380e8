"""Maintainer tooling (headless browser, notebook execution): not part of the anatomy package."""
