#!/usr/bin/env bash
# Placeholder until the ts client lands: nothing to generate yet.
exit 0
