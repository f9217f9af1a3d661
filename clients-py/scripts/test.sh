#!/usr/bin/env bash
# Placeholder until the py client lands: no tests yet.
exit 0
