import { z } from 'zod';
import { bearerAuth, cursorParam, requireEnv, restSessionConnector, type RestResource } from '../rest/index.ts';
import { EnvVarName, NumericId, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['workspaces', 'projects', 'tasks', 'users'],
  available: ['workspaces', 'projects', 'tasks', 'users', 'sections', 'tags'],
} as const;

export const TaskTrackerConfig = genericConfig({
  access_token_env: EnvVarName.default('TASK_TRACKER_ACCESS_TOKEN'),
  /** Workspace gids to read; absent means every workspace the token's user belongs to. */
  workspace_gids: z.array(NumericId).min(1).optional(),
  resources: resourceList(RESOURCES),
});
export type TaskTrackerConfig = z.output<typeof TaskTrackerConfig>;

const PAGE_SIZE = 100;
const nextOffset = cursorParam('next_page.offset', 'offset');

/** Asana answers compact records (gid, name) unless asked for fields by name. */
const FIELDS = {
  workspaces: 'name,is_organization,email_domains',
  projects: 'name,archived,color,created_at,modified_at,due_on,start_on,notes,public,owner.name,team.name,workspace.name,current_status.text,permalink_url',
  tasks: 'name,resource_subtype,completed,completed_at,created_at,modified_at,due_on,start_on,notes,assignee.name,assignee.email,'
    + 'memberships.project.name,memberships.section.name,tags.name,custom_fields.name,custom_fields.display_value,parent.name,num_subtasks,permalink_url',
  users: 'name,email,photo.image_128x128',
  sections: 'name,created_at,project.name',
  tags: 'name,color,created_at,notes,workspace.name',
} as const;

function listResource(name: keyof typeof FIELDS, path: string, params: Readonly<Record<string, string>> = {}): RestResource {
  return { name, path, params: { ...params, limit: PAGE_SIZE, opt_fields: FIELDS[name] }, dataSelector: 'data', paginator: nextOffset };
}

/**
 * The tasks of one project not yet seen in this sync: a task can live in several projects, and one
 * extraction must stage it once.
 */
function tasksResource(projectGid: string, seen: Set<string>): RestResource {
  return {
    ...listResource('tasks', '/tasks', { project: projectGid }),
    dataSelector: (body) => {
      const tasks = (body as { data?: { gid: string }[] } | null)?.data ?? [];
      const unseen = tasks.filter((task) => !seen.has(task.gid));
      for (const task of unseen) seen.add(task.gid);
      return unseen;
    },
    primaryKey: ['gid'],
    incremental: { cursorPath: 'modified_at', param: 'modified_since' },
  };
}

/** `task_tracker`: Asana's REST API with a personal access token: workspaces, their projects and users, each project's tasks. */
const taskTrackerConnector = restSessionConnector<TaskTrackerConfig>({
  baseUrl: () => 'https://app.asana.com/api/1.0',
  auth: (config, env) => bearerAuth(requireEnv(env, config.access_token_env, 'an Asana personal access token')),
  async extract(session, config) {
    const wanted = new Set(config.resources);
    const workspaces = await session.collect(listResource('workspaces', '/workspaces'), { stage: wanted.has('workspaces') });
    const workspaceGids = config.workspace_gids ?? workspaces.map((workspace) => String(workspace.gid));
    const seenTasks = new Set<string>();
    const needsProjects = wanted.has('projects') || wanted.has('tasks') || wanted.has('sections');
    for (const workspace of workspaceGids) {
      const projects = needsProjects
        ? await session.collect(listResource('projects', '/projects', { workspace }), { stage: wanted.has('projects') })
        : [];
      for (const project of projects.map((found) => String(found.gid))) {
        // A task's cursor is kept per project: `modified_since` filters one project's list at a time.
        if (wanted.has('tasks')) await session.extract(tasksResource(project, seenTasks), { cursorScope: project });
        if (wanted.has('sections')) await session.extract(listResource('sections', `/projects/${project}/sections`));
      }
      if (wanted.has('users')) {
        // One row per user and workspace: a user of two workspaces is listed in both.
        await session.extract({ ...listResource('users', '/users', { workspace }), mapRecord: (user) => ({ workspace_gid: workspace, ...user }) });
      }
      if (wanted.has('tags')) await session.extract(listResource('tags', '/tags', { workspace }));
    }
  },
});

export const taskTrackerType = defineSourceType({
  key: 'task_tracker', category: 'Business & CRM', authType: 'API Key', wizard: false, wizardDisabledReason: 'its upstream loader lost its SDK; configure it via native_pipeline', incremental: true,
  section: 'generic', schema: TaskTrackerConfig,
  resources: RESOURCES,
  connector: taskTrackerConnector,
});
