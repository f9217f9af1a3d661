#!/usr/bin/env bash
# Placeholder until the ts client lands: no tests yet.
exit 0
