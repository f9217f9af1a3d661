#!/usr/bin/env bash
# Placeholder until the go client lands: nothing to generate yet.
exit 0
