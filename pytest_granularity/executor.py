"""The executor: drives an agent through tool calls in one workspace and records the transcript.

It does not know which agent it drives. Each model call is billed on the transcript; each tool
call is dispatched to the tools allowed in the current mode; a tool that is not allowed, or
bad arguments, become an observation. A runaway agent is stopped at the step limit as a
failed run, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .agents import Agent
from .tasks import Task
from .tools import FINISH, MICRO_TOOLS, Tool, ToolContext, call_tool
from .transcript import Transcript

STOP_FINISHED = "finished"
STOP_STEP_LIMIT = "step_limit"

SYSTEM_PROMPT = (
    "You are a coding agent working in a Python repository. Mode: {mode}. "
    "Use the tools to change the workspace so that the task is done, then call finish. "
    "Only the task's hidden verifier decides whether the task is done."
)


@dataclass
class Execution:
    transcript: Transcript
    steps: int = 0
    macro_calls: int = 0
    stop_reason: str = ""
    transitions: list[str] = field(default_factory=list)


def execute_micro(task: Task, agent: Agent, ctx: ToolContext, max_steps: int) -> Execution:
    """A micro-mode run: only the micro tools, until the agent finishes or hits the step limit."""
    tools = dict(MICRO_TOOLS)
    transcript = Transcript(SYSTEM_PROMPT.format(mode="micro"), task.prompt, [t.schema() for t in tools.values()])
    execution = Execution(transcript)
    drive(execution, agent, tools, ctx, max_steps)
    return execution


def drive(execution: Execution, agent: Agent, tools: dict[str, Tool], ctx: ToolContext, max_steps: int) -> None:
    """Ask the agent for calls and run them until it finishes or the step limit is reached."""
    transcript = execution.transcript
    while True:
        call = agent.next_call(transcript.messages, transcript.tools)
        transcript.record_call(call)
        if call.name == FINISH:
            execution.stop_reason = STOP_FINISHED
            return
        if execution.steps >= max_steps:
            execution.stop_reason = STOP_STEP_LIMIT
            return
        execution.steps += 1
        tool = tools.get(call.name)
        if tool is None:
            transcript.add_observation(f"error: unknown tool '{call.name}'; allowed: {', '.join(sorted(tools))}")
            continue
        transcript.add_observation(call_tool(tool, ctx, call.arguments).text)
