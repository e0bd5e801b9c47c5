#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The GitHub Action's executable (action.yml's run step): reads the action's inputs from INPUT_* and
 * exits with the code its `fail-on` asks for (cli/github-action.ts).
 */
import { runGithubAction } from './github-action.js';
import { processCliContext } from './process-context.js';

process.exitCode = await runGithubAction(processCliContext());
