#!/usr/bin/env bash
# Placeholder until the py client lands: nothing to generate yet.
exit 0
